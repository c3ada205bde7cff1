package charts

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LiveLine is one program's bytes live over its program order.
type LiveLine struct {
	// Name says what program it is and where the numbers come from:
	// "batch 16 — XLA's plan, compiled on xla:cpu at 23:40".
	Name string
	// Points: X is the position in the program's schedule as a fraction 0…1 (so programs of
	// different lengths share the axis), Y the bytes live there.
	Points []XY
	// Peak says what the curve's highest point holds (its largest buffers), added to its legend
	// entry; the point itself is marked with its bytes. "" for none.
	Peak string
	// Origin says where the bytes come from (XLA's plan of a compiled program: units.Formula);
	// LiveBytes refuses a line without one.
	Origin units.Origin
}

// LiveBytes draws bytes live across program order, one line per program, each peak marked and
// labeled. The title should carry the numbers' origin.
func LiveBytes(title string, lines []LiveLine) (*plot.Plot, error) {
	if len(lines) == 0 {
		return nil, fmt.Errorf("%w in %q: no programs", ErrNoData, title)
	}
	top := 0.0
	for _, l := range lines {
		if len(l.Points) == 0 {
			return nil, fmt.Errorf("%w in %q: %q has no points", ErrNoData, title, l.Name)
		}
		if l.Origin.Kind == units.Unstated {
			return nil, fmt.Errorf("charts: %q: %q %w", title, l.Name, ErrNoOrigin)
		}
		for _, p := range l.Points {
			if p.Y < 0 || math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
				return nil, fmt.Errorf("charts: %q: %q has an invalid byte count %v", title, l.Name, p.Y)
			}
			top = math.Max(top, p.Y)
		}
	}
	unit, name := binaryScale(top)
	p := New(title, "position in the step's program order [% of the instructions that run]", "bytes live ["+name+"]")
	var peaks plotter.XYs
	var labels []string
	for i, l := range lines {
		pts := make(plotter.XYs, len(l.Points))
		peak := 0
		for j, q := range l.Points {
			pts[j] = plotter.XY{X: 100 * q.X, Y: q.Y / unit}
			if q.Y > l.Points[peak].Y {
				peak = j
			}
		}
		ln, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("charts: %q: %w", title, err)
		}
		ln.LineStyle = draw.LineStyle{Color: ColorOf(i), Width: vg.Points(1.6)}
		p.Add(ln)
		legend := l.Name
		if l.Peak != "" {
			legend += "; at its peak: " + l.Peak
		}
		AddLegend(p, legend, ln)
		peaks = append(peaks, pts[peak])
		labels = append(labels, fmt.Sprintf("peak %.3g %s", pts[peak].Y, name))
	}
	if len(peaks) > 0 {
		sc, err := plotter.NewScatter(peaks)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: Ink, Radius: vg.Points(4), Shape: diamond{}}
		p.Add(sc)
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: peaks, Labels: labels})
		if err != nil {
			return nil, err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i] = textStyle(8)
			lb.TextStyle[i].XAlign = draw.XCenter
			lb.TextStyle[i].YAlign = draw.YBottom
		}
		lb.Offset = vg.Point{Y: vg.Points(5)}
		p.Add(lb)
	}
	p.X.Min, p.X.Max = 0, 100
	p.Y.Min = 0
	p.Y.Max *= 1.15
	for _, l := range lines {
		From(p, l.Origin)
	}
	return p, nil
}
