package display

import (
	"fmt"
	"strings"
	"testing"

	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/gpu-course/whygpu/pkg/teach/recall"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/display/displaytest"
)

func TestRecallInNotebook(t *testing.T) {
	k := displaytest.Notebook(t)
	deck := &recall.Deck{Lesson: "01-race", Title: "t", Sections: []recall.Section{
		{ID: "a", Title: "Section A", Cards: []recall.Card{{Question: "Q?", Answer: "A."}}},
	}}
	if err := Recall(deck, "a"); err != nil {
		t.Fatal(err)
	}
	if err := Recall(deck, "missing"); err == nil {
		t.Error("a missing section gave no error")
	}
	k.WaitFor(t, "two outputs", func() bool { return len(k.Outputs()) >= 2 })
	outs := k.Outputs()
	d := outs[0]
	h, _ := d.Data[protocol.MIMETextHTML].(string)
	p, _ := d.Data[protocol.MIMETextPlain].(string)
	if !strings.Contains(h, `data-recall-lesson="01-race"`) || !strings.Contains(p, "Recall check — Section A") {
		t.Errorf("recall output: html %.120q… text %q", h, p)
	}
	if e, _ := outs[1].Data[protocol.MIMETextHTML].(string); !strings.Contains(e, "whygpu-error") {
		t.Errorf("missing section not shown as an error: %q", e)
	}
}

func TestChartIsSVG(t *testing.T) {
	k := displaytest.Notebook(t)
	err := Plot(charts.Bars("chart", "value [units]", []charts.Bar{{Label: "a", Value: 1, Source: charts.Live}}))
	if err != nil {
		t.Fatal(err)
	}
	Plot(nil, fmt.Errorf("no data"))
	k.WaitFor(t, "three outputs", func() bool { return len(k.Outputs()) >= 3 })
	outs := k.Outputs()
	// The chart's origin badges come first, as their own HTML output, then the chart as an image.
	if b, _ := outs[0].Data[protocol.MIMETextHTML].(string); !strings.Contains(b, `class="whygpu-badge" data-origin="live"`) {
		t.Errorf("no live badge above the chart: %q", b)
	}
	svg, _ := outs[1].Data[protocol.MIMEImageSVG].(string)
	if !strings.Contains(svg, "<svg") || outs[1].Data[protocol.MIMETextHTML] != nil {
		t.Errorf("chart output has MIME types %v", keys(outs[1].Data))
	}
	if e, _ := outs[2].Data[protocol.MIMETextHTML].(string); !strings.Contains(e, "whygpu-error") || !strings.Contains(e, "no data") {
		t.Errorf("chart error output: %q", e)
	}
}

func keys(m map[protocol.MIMEType]any) []protocol.MIMEType {
	var out []protocol.MIMEType
	for k := range m {
		out = append(out, k)
	}
	return out
}
