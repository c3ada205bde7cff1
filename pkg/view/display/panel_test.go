package display

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/controls"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

func testForm() []controls.Control {
	return []controls.Control{
		{Name: "preset", Label: "preset", Options: []string{"small", "custom"}, Value: "small", Preset: true},
		{Name: "batch", Label: "micro-batch", Min: 1, Max: 64, Value: "8"},
	}
}

func TestPanelParse(t *testing.T) {
	p := &panel{form: testForm()}
	for _, c := range []struct {
		msg string
		ok  bool
	}{
		{`12:{"preset":"small","batch":"16"}`, true},
		{`12:{"preset":"large","batch":"16"}`, false}, // not an option
		{`12:{"preset":"small","batch":"65"}`, false}, // out of range
		{`12:{"preset":"small"}`, false},              // incomplete
		{`x:{"preset":"small","batch":"16"}`, false},
		{`stop`, false},
	} {
		_, vals, ok := p.parse(c.msg)
		if ok != c.ok {
			t.Errorf("%s: ok %v (%v), want %v", c.msg, ok, vals, c.ok)
		}
	}
}

func TestPanelHTML(t *testing.T) {
	p := &panel{form: testForm(), uid: "u1", idleSecs: 90}
	html := renderPanel("controls", struct {
		ID, Address string
		IdleSecs    int
		Controls    []controls.Control
	}{p.controlsID(), p.address(), 90, p.form})
	for _, want := range []string{`data-panel-input="preset" data-panel-preset`, `<option value="small" selected>`,
		`type="number" min="1" max="64" step="1" value="8" data-panel-input="batch"`, `data-panel-stop`, `"/whygpu/panel/u1"`} {
		if !strings.Contains(html, want) {
			t.Errorf("controls lack %q:\n%s", want, html)
		}
	}
	plot, err := charts.LiveBytes("t", []charts.LiveLine{{Name: "a", Points: []charts.XY{{X: 0, Y: 1}, {X: 1, Y: 2}}, Origin: units.Formula("a test's plan")}})
	if err != nil {
		t.Fatal(err)
	}
	got := viewText(controls.View{Plot: plot, Caption: "cap", Fold: "f = 1", Err: errors.New("refused")})
	for _, want := range []string{"[chart: t]", "cap", "refused", "f = 1"} {
		if !strings.Contains(got, want) {
			t.Errorf("view text lacks %q: %q", want, got)
		}
	}
}

// Outside a notebook a panel prints its first view once and returns its error.
func TestPanelOutsideANotebook(t *testing.T) {
	calls := 0
	err := Panel(testForm(), func(v controls.Values) controls.View {
		calls++
		return controls.View{Caption: "batch " + v["batch"], Err: errors.New("too big")}
	}, PanelOptions{})
	if calls != 1 || err == nil || err.Error() != "too big" {
		t.Errorf("%d views, error %v", calls, err)
	}
}
