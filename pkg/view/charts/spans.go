package charts

import (
	"fmt"
	"math"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Span is how long one device takes for a long job (a whole training run): seconds that can reach
// years, which a time.Duration cannot hold.
type Span struct {
	// Label names the row: "xla:cpu", "NVIDIA H200 (model)".
	Label string
	// Seconds is the job's time; for a band it is the band's middle, for ordering only.
	Seconds float64
	// Low and High are a model's band in seconds (both zero: Seconds is a single value). A band is
	// drawn as a shaded box between its ends, never as a bar that looks measured.
	Low, High float64
	// Source says where the time comes from; Note details it ("at 26 GFLOP/s measured here").
	Source Source
	Note   string
}

// Banded reports whether the span is a band (0 < Low < High).
func (s Span) Banded() bool { return s.Low > 0 && s.High > s.Low }

// SpanBars draws long jobs as horizontal bars on a log time axis labeled in human units (minutes,
// hours, days, years), one row per span, top to bottom in the given order. A measured or recorded
// span is a bar from the axis' left edge; a banded (model) span is a shaded box between its ends
// with a dotted outline. Every row is labeled with its time and its source.
func SpanBars(title string, spans []Span) (*plot.Plot, error) {
	if len(spans) == 0 {
		return nil, fmt.Errorf("%w in %q: no spans", ErrNoData, title)
	}
	lo, hi := math.Inf(1), 0.0
	for _, s := range spans {
		if err := checkOrigin(title, fmt.Sprintf("span %q", s.Label), s.Source); err != nil {
			return nil, err
		}
		if (s.Low != 0 || s.High != 0) && !s.Banded() {
			return nil, fmt.Errorf("charts: %q: span %q has a band %g–%g s that is not 0 < low < high", title, s.Label, s.Low, s.High)
		}
		v := []float64{s.Seconds}
		if s.Banded() {
			v = []float64{s.Low, s.High}
		}
		for _, x := range v {
			if !(x > 0) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("charts: %q: span %q has no positive finite time (%g s)", title, s.Label, x)
			}
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	p := New(title, "time (log scale)", "")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = SpanTicks{}
	p.X.Min = lo / 10
	p.X.Max = hi * 100 // room for the labels right of the longest bar
	n := len(spans)
	names := make([]string, n)
	const h = 0.28
	for i, s := range spans {
		y := float64(n - 1 - i) // first span on top
		names[n-1-i] = s.Label
		from, to := p.X.Min, s.Seconds
		if s.Banded() {
			from, to = s.Low, s.High
		}
		box, err := plotter.NewPolygon(plotter.XYs{{X: from, Y: y - h}, {X: to, Y: y - h}, {X: to, Y: y + h}, {X: from, Y: y + h}})
		if err != nil {
			return nil, fmt.Errorf("charts: %q: %w", title, err)
		}
		box.LineStyle = lineStyle(i, s.Source)
		box.LineStyle.Width = vg.Points(1.2)
		switch {
		case s.Banded():
			box.Color = bandFill(ColorOf(i))
		case s.Source == Live:
			box.Color = ColorOf(i)
			box.LineStyle.Width = 0
		default:
			box.Color = lighten(ColorOf(i))
		}
		p.Add(box)
		text := units.Long(s.Seconds)
		if s.Banded() {
			text = units.Long(s.Low) + " – " + units.Long(s.High)
		}
		p.Add(label(to, y, text+"  ("+s.Source.Describe(s.Note)+")", Ink, vg.Points(5), 0))
	}
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	for _, s := range spans {
		From(p, s.Source.Origin(s.Note))
	}
	return p, nil
}

const (
	minute = 60.0
	hour   = 60 * minute
	day    = 24 * hour
	year   = 365 * day // as units.Long counts it
)

// SpanTicks is a plot.Ticker for a log time axis in seconds: ticks at 1 s, 1 min, 1 h, 1 day,
// 30 days, 1 year and powers of ten years, labeled in those units.
type SpanTicks struct{}

var _ plot.Ticker = SpanTicks{}

// Ticks returns the human-unit ticks between min and max seconds.
func (SpanTicks) Ticks(min, max float64) []plot.Tick {
	marks := []struct {
		v    float64
		text string
	}{{1, "1 s"}, {minute, "1 min"}, {hour, "1 h"}, {day, "1 day"}, {30 * day, "30 days"}, {year, "1 year"}}
	for e, v := 1, 10*year; e <= 6; e, v = e+1, v*10 {
		marks = append(marks, struct {
			v    float64
			text string
		}{v, fmt.Sprintf("%.0f years", v/year)})
	}
	var ticks []plot.Tick
	for _, m := range marks {
		if m.v >= min*(1-1e-9) && m.v <= max*(1+1e-9) {
			ticks = append(ticks, plot.Tick{Value: m.v, Label: m.text})
		}
	}
	return ticks
}
