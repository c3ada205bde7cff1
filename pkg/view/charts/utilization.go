package charts

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Utilization draws a utilization timeline: X is seconds since the start of the run, Y percent
// busy (0–100). cores has one series per CPU core, drawn thin, with their mean drawn bold; gpus
// (optional, nil when there is no GPU) has one series per GPU, drawn bold in their own colors.
// A device starved of work shows as a saw-tooth; a fed one as a flat line near 100 %.
func Utilization(title string, cores, gpus []Series) (*plot.Plot, error) {
	a := Axes{Title: title, X: "time since start [s]", Y: "utilization [% busy]", YTicks: PercentTicks{}}
	for _, s := range append(append([]Series(nil), cores...), gpus...) {
		if err := a.checkPoints(s); err != nil {
			return nil, err
		}
	}
	p := a.frame()
	n := 0
	cpuColor := ColorOf(0)
	thin := color.NRGBA{0, 114, 178, 90}
	var first plot.Thumbnailer
	for _, s := range cores {
		if len(s.Points) == 0 {
			continue
		}
		l, err := plotter.NewLine(toXYs(s.Sorted()))
		if err != nil {
			return nil, fmt.Errorf("charts: %q: %w", s.Name, err)
		}
		l.LineStyle = lineStyle(0, s.Source)
		l.LineStyle.Color = thin
		l.LineStyle.Width = vg.Points(0.9)
		p.Add(l)
		if first == nil {
			first = l
		}
		n++
	}
	if n > 0 {
		src, note := cores[0].Source, cores[0].Note
		AddLegend(p, fmt.Sprintf("CPU, each of %d cores — %s", n, src.Describe(note)), first)
		if mean := meanSeries(cores); len(mean) > 0 {
			l, err := plotter.NewLine(toXYs(mean))
			if err != nil {
				return nil, err
			}
			l.LineStyle = lineStyle(0, src)
			l.LineStyle.Color = cpuColor
			l.LineStyle.Width = vg.Points(2.2)
			p.Add(l)
			AddLegend(p, fmt.Sprintf("CPU, mean of %d cores", n), l)
		}
	}
	for i, s := range gpus {
		if len(s.Points) == 0 {
			continue
		}
		l, err := plotter.NewLine(toXYs(s.Sorted()))
		if err != nil {
			return nil, fmt.Errorf("charts: %q: %w", s.Name, err)
		}
		l.LineStyle = lineStyle(1+i, s.Source)
		l.LineStyle.Width = vg.Points(2.2)
		p.Add(l)
		AddLegend(p, s.Legend(), l)
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%w in %q: no utilization samples", ErrNoData, title)
	}
	p.Y.Min, p.Y.Max = 0, 105
	fromSeries(p, cores, gpus)
	return p, nil
}

// meanSeries averages series sampled at (roughly) the same times: the i-th point of the mean is
// the mean of the i-th points, at their mean time, over the points every series has.
func meanSeries(ss []Series) []XY {
	n := math.MaxInt
	var live []Series
	for _, s := range ss {
		if len(s.Points) == 0 {
			continue
		}
		live = append(live, s)
		n = min(n, len(s.Points))
	}
	if len(live) == 0 {
		return nil
	}
	sorted := make([][]XY, len(live))
	for i, s := range live {
		sorted[i] = s.Sorted()
	}
	out := make([]XY, n)
	for i := range n {
		var x, y float64
		for _, s := range sorted {
			x += s[i].X
			y += s[i].Y
		}
		out[i] = XY{X: x / float64(len(sorted)), Y: y / float64(len(sorted))}
	}
	return out
}
