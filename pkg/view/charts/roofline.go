package charts

import (
	"fmt"
	"image/color"
	"math"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Roof is one device's roofline: what it can attain at each arithmetic intensity, given its peak
// compute and its memory bandwidth, with the workloads measured on it.
type Roof struct {
	// Name is the device and dtype: "xla:cpu float32", "NVIDIA H200 bf16".
	Name string
	// PeakFLOPS is the compute ceiling in FLOP/s; Bandwidth the memory ceiling in bytes/s.
	PeakFLOPS, Bandwidth float64
	// Source and Note say where the ceilings come from: a datasheet (Model), measured ceilings
	// (Live), or recorded ones.
	Source Source
	Note   string // details the source: "H200 datasheet", "NVIDIA H200, 2026-11-30"
	// Points are workloads measured on this device.
	Points []RoofPoint
}

// RoofPoint is one measured workload on a roofline chart.
type RoofPoint struct {
	// Label names the workload: "matmul 1024", "layernorm".
	Label string
	// Intensity is FLOPs per byte moved; FLOPS the achieved FLOP/s.
	Intensity, FLOPS float64
	// Source and Note say whether it was measured live or recorded.
	Source Source
	Note   string // details a recorded source: "NVIDIA H200, 2026-11-30"
}

// Ridge is the arithmetic intensity (FLOP/byte) where the roof turns flat: below it a workload is
// memory-bound, above it compute-bound.
func (r Roof) Ridge() float64 { return r.PeakFLOPS / r.Bandwidth }

// Attainable is the best FLOP/s the roof allows at an intensity: min(peak, bandwidth × intensity).
func (r Roof) Attainable(intensity float64) float64 {
	return math.Min(r.PeakFLOPS, r.Bandwidth*intensity)
}

// Roofline draws each roof on log–log axes (X: arithmetic intensity in FLOP/byte, Y: FLOP/s),
// marks and labels its ridge point, and plots its measured points, each labeled, in the roof's
// color: filled when measured live, hollow when recorded.
func Roofline(title string, roofs []Roof) (*plot.Plot, error) {
	if len(roofs) == 0 {
		return nil, fmt.Errorf("%w in %q: no roofs", ErrNoData, title)
	}
	// X range: a decade around every ridge and point.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range roofs {
		if err := checkOrigin(title, fmt.Sprintf("roof %q", r.Name), r.Source); err != nil {
			return nil, err
		}
		for _, pt := range r.Points {
			if err := checkOrigin(title, fmt.Sprintf("point %q", pt.Label), pt.Source); err != nil {
				return nil, err
			}
		}
		if !(r.PeakFLOPS > 0) || !(r.Bandwidth > 0) || math.IsInf(r.PeakFLOPS, 0) || math.IsInf(r.Bandwidth, 0) {
			return nil, fmt.Errorf("charts: %q: roof %q needs a positive peak FLOP/s and bandwidth (got %g, %g)",
				title, r.Name, r.PeakFLOPS, r.Bandwidth)
		}
		lo, hi = math.Min(lo, r.Ridge()), math.Max(hi, r.Ridge())
		for _, pt := range r.Points {
			if !(pt.Intensity > 0) || !(pt.FLOPS > 0) || math.IsInf(pt.Intensity, 0) || math.IsInf(pt.FLOPS, 0) {
				return nil, fmt.Errorf("charts: %q: point %q on %q needs a positive intensity and FLOP/s (got %g, %g)",
					title, pt.Label, r.Name, pt.Intensity, pt.FLOPS)
			}
			lo, hi = math.Min(lo, pt.Intensity), math.Max(hi, pt.Intensity)
		}
	}
	lo = math.Pow(10, math.Floor(math.Log10(lo/3)))
	hi = math.Pow(10, math.Ceil(math.Log10(hi*3)))

	a := Axes{
		Title: title, X: "arithmetic intensity [FLOP/byte]", Y: "performance [FLOP/s]",
		LogX: true, LogY: true, YTicks: LogTicks{Format: func(v float64) string { return units.SI(v, "") }},
	}
	p := a.frame()
	for i, r := range roofs {
		ridge := r.Ridge()
		roof := plotter.XYs{{X: lo, Y: r.Attainable(lo)}, {X: ridge, Y: r.PeakFLOPS}, {X: hi, Y: r.PeakFLOPS}}
		if ridge <= lo || ridge >= hi {
			roof = plotter.XYs{{X: lo, Y: r.Attainable(lo)}, {X: hi, Y: r.Attainable(hi)}}
		}
		l, err := plotter.NewLine(roof)
		if err != nil {
			return nil, fmt.Errorf("charts: roof %q: %w", r.Name, err)
		}
		l.LineStyle = lineStyle(i, r.Source)
		l.LineStyle.Width = vg.Points(2.4)
		p.Add(l)

		// Ridge point: a diamond with its intensity.
		rp, err := plotter.NewScatter(plotter.XYs{{X: ridge, Y: r.PeakFLOPS}})
		if err != nil {
			return nil, err
		}
		rp.GlyphStyle = draw.GlyphStyle{Color: ColorOf(i), Radius: vg.Points(4.5), Shape: diamond{}}
		p.Add(rp)
		p.Add(label(ridge, r.PeakFLOPS, fmt.Sprintf("ridge %s FLOP/B", units.Plain(ridge)), ColorOf(i), vg.Points(6), vg.Points(7)))
		AddLegend(p, fmt.Sprintf("%s roof: %sFLOP/s, %sB/s, ridge %s FLOP/B — %s",
			r.Name, units.SI(r.PeakFLOPS, ""), units.SI(r.Bandwidth, ""), units.Plain(ridge), r.Source.Describe(r.Note)), l, rp)

		// Measured points, grouped by source for the legend.
		for _, src := range []Source{Live, Recorded, Model} {
			var xys plotter.XYs
			var note string
			for _, pt := range r.Points {
				if pt.Source != src {
					continue
				}
				xys = append(xys, plotter.XY{X: pt.Intensity, Y: pt.FLOPS})
				p.Add(label(pt.Intensity, pt.FLOPS, pt.Label, Ink, vg.Points(6), vg.Points(-7)))
				note = pt.Note
			}
			if len(xys) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = glyphStyle(i, src)
			if sc.GlyphStyle.Radius == 0 {
				sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = vg.Points(3.5), draw.CrossGlyph{}
			}
			sc.GlyphStyle.Radius += vg.Points(0.8)
			p.Add(sc)
			AddLegend(p, fmt.Sprintf("%s workloads — %s", r.Name, src.Describe(note)), sc)
		}
	}
	p.X.Min, p.X.Max = lo, hi
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, r := range roofs {
		ylo = math.Min(ylo, r.Attainable(lo))
		yhi = math.Max(yhi, r.PeakFLOPS)
		for _, pt := range r.Points {
			ylo = math.Min(ylo, pt.FLOPS)
		}
	}
	p.Y.Min, p.Y.Max = ylo/2, yhi*3
	for _, r := range roofs {
		From(p, r.Source.Origin(r.Note))
		for _, pt := range r.Points {
			From(p, pt.Source.Origin(pt.Note))
		}
	}
	return p, nil
}

// label returns a single text label at (x, y), offset by (dx, dy).
func label(x, y float64, text string, clr color.Color, dx, dy vg.Length) *plotter.Labels {
	l, _ := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: y}}, Labels: []string{text}})
	sty := textStyle(9)
	sty.Color = clr
	l.TextStyle[0] = sty
	l.Offset = vg.Point{X: dx, Y: dy}
	return l
}

// diamond is a diamond-shaped glyph (the ridge point).
type diamond struct{}

// DrawGlyph draws a filled diamond.
func (diamond) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetColor(sty.Color)
	r := sty.Radius
	var path vg.Path
	path.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	path.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	path.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	path.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	path.Close()
	c.Fill(path)
}
