package display

import (
	"fmt"
	"html"

	"github.com/janpfeifer/gonb/gonbui"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// LiveChart is a chart with a caption that later updates redraw in place (gonbui.UpdateHTML, one
// display ID), e.g. a loss curve while a model trains. Outside a notebook each update prints the
// caption only.
type LiveChart struct{ id string }

// NewLiveChart shows an initial caption where the chart will be.
func NewLiveChart(caption string) *LiveChart {
	c := &LiveChart{}
	if InNotebook() {
		c.id = "whygpu-live-" + gonbui.UniqueId()
		send(c.id, liveHTML("", nil, caption), caption)
	} else {
		fmt.Println(caption)
	}
	return c
}

// Update replaces the chart and its caption. A chart that fails to render shows the error instead.
func (c *LiveChart) Update(p *plot.Plot, caption string) {
	var svg []byte
	badges, plain := "", caption
	if p != nil {
		var err error
		if svg, err = charts.SVG(p, 0, 0); err != nil {
			caption += " (chart: " + err.Error() + ")"
		}
		badges, plain = BadgesHTML(charts.Origins(p)), badgesText(charts.Origins(p))+caption
	}
	if c.id == "" {
		fmt.Print(plain + "\n")
		return
	}
	send(c.id, liveHTML(badges, svg, caption), plain)
}

// Done shows the final chart and caption and waits until the notebook has it.
func (c *LiveChart) Done(p *plot.Plot, caption string) {
	c.Update(p, caption)
	if c.id != "" {
		gonbui.Sync()
	}
}

// liveHTML is the chart under its origin badges (once there is a chart), with the caption below.
func liveHTML(badges string, svg []byte, caption string) string {
	return `<div class="whygpu-live">` + badges + string(svg) +
		`<div style="font-family:monospace">` + html.EscapeString(caption) + `</div></div>`
}
