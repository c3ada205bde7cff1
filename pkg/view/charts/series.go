package charts

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Source says where a chart's numbers come from. Every series, lane, roof, point and span has one,
// and the legend says it in words. The zero value is NoOrigin, which every chart refuses
// (ErrNoOrigin): a number cannot reach the screen without saying where it came from.
type Source int

// The sources.
const (
	// NoOrigin is a value built without saying where it came from: refused by every chart.
	NoOrigin Source = iota
	// Live numbers were measured on this machine in this session: solid lines, filled markers.
	Live
	// Recorded numbers were measured earlier on a named device (a reference file): dashed lines,
	// hollow markers. The Note names the device and date.
	Recorded
	// Model numbers are computed from a datasheet or a formula, not measured: dotted lines.
	Model
	// Emulated numbers were measured on an emulation of the thing named (the course's goroutine
	// launch queue standing in for a CUDA stream): dotted lines, like a model.
	Emulated
)

// ErrNoOrigin is wrapped by a chart's error when something it was given has no Source.
var ErrNoOrigin = errors.New("has no origin (measured live, recorded, model or emulated)")

// checkOrigin refuses a NoOrigin source of the thing named what in chart title.
func checkOrigin(title, what string, s Source) error {
	if s == NoOrigin {
		return fmt.Errorf("charts: %q: %s %w", title, what, ErrNoOrigin)
	}
	return nil
}

// String is the source in words: "measured live", "recorded", "datasheet model".
func (s Source) String() string {
	switch s {
	case Live:
		return "measured live"
	case Recorded:
		return "recorded"
	case Model:
		return "datasheet model"
	case Emulated:
		return "emulated"
	case NoOrigin:
		return "no origin"
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// Describe says where numbers come from, with the note: "measured live", "recorded on NVIDIA
// H200, 2026-11-30", "datasheet model (H200 SXM)".
func (s Source) Describe(note string) string {
	switch {
	case s == Recorded && note != "":
		return "recorded on " + note
	case s == Recorded:
		return "recorded earlier"
	case note != "":
		return s.String() + " (" + note + ")"
	}
	return s.String()
}

// Brief is Describe for a line of text beside a chart or a bar: a recording keeps its device and
// date, but a model's note (its assumptions, a paragraph) is left to the origin badge's fold, so a
// printed line never repeats it.
func (s Source) Brief(note string) string {
	if s == Model || s == Emulated {
		return s.String() + " (not a measurement; its assumptions are behind the badge)"
	}
	return s.Describe(note)
}

// XY is one point of a series.
type XY struct {
	X, Y float64 // in base units: samples, bytes, seconds, FLOP/s …
	// Lo and Hi are a model's band at X (both zero: no band). A series whose points have bands is
	// drawn as a shaded band between its Lo and Hi ends, never as a line; Y is then the band's middle.
	Lo, Hi float64
	// Disturbed marks a measured point during which other programs used the CPU (or a container's
	// quota throttled it): drawn with a DisturbedLegend marker, never dropped.
	Disturbed bool
}

// DisturbedLegend is the legend entry of the marker on disturbed points.
const DisturbedLegend = "disturbed: other programs used the CPU — rerun when the machine is quiet"

// MapY applies f to the point's Y and, for a band, to both ends, keeping Lo ≤ Hi (so a time band
// turned into a throughput band swaps its ends).
func (p XY) MapY(f func(x, y float64) float64) XY {
	q := XY{X: p.X, Y: f(p.X, p.Y)}
	if p.Hi > 0 {
		q.Lo, q.Hi = f(p.X, p.Lo), f(p.X, p.Hi)
		if q.Lo > q.Hi {
			q.Lo, q.Hi = q.Hi, q.Lo
		}
	}
	return q
}

// Banded reports whether any point of the series carries a band.
func (s Series) Banded() bool {
	for _, pt := range s.Points {
		if pt.Hi > pt.Lo && pt.Lo > 0 {
			return true
		}
	}
	return false
}

// Series is a named curve with its provenance.
type Series struct {
	// Name is what the curve is, usually the device: "xla:cpu", "xla:cuda (NVIDIA H200)".
	Name string
	// Points in base units (seconds, bytes, FLOP/s …); any order, sorted by X when drawn.
	Points []XY
	// Source says whether the points were measured live, recorded, or come from a model.
	Source Source
	// Note details a recorded or model source: "NVIDIA H200, 2026-11-30", "H200 datasheet".
	Note string
}

// Legend is the series' legend text: "xla:cpu — measured live".
func (s Series) Legend() string {
	if s.Banded() {
		return s.Name + " — band, " + s.Source.Describe(s.Note)
	}
	return s.Name + " — " + s.Source.Describe(s.Note)
}

// Sorted returns the points sorted by X (a copy).
func (s Series) Sorted() []XY {
	pts := append([]XY(nil), s.Points...)
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
	return pts
}

// lineStyle is the line style of series i from a source.
func lineStyle(i int, src Source) draw.LineStyle {
	ls := draw.LineStyle{Color: ColorOf(i), Width: vg.Points(2)}
	switch src {
	case Recorded:
		ls.Dashes = []vg.Length{vg.Points(7), vg.Points(4)}
	case Model, Emulated:
		ls.Dashes = []vg.Length{vg.Points(1.5), vg.Points(3)}
		ls.Width = vg.Points(1.8)
	}
	return ls
}

// glyphStyle is the marker of series i from a source (Radius 0: none).
func glyphStyle(i int, src Source) draw.GlyphStyle {
	gs := draw.GlyphStyle{Color: ColorOf(i), Radius: vg.Points(3.2), Shape: draw.CircleGlyph{}}
	switch src {
	case Recorded:
		gs.Shape = draw.RingGlyph{}
		gs.Radius = vg.Points(3.6)
	case Model:
		gs.Radius = 0
	}
	return gs
}

// Axes describes a chart's frame: title, axis labels with units, scales and tick labels.
type Axes struct {
	Title string // the chart's title
	// X and Y are the axis labels, with their units: "batch size [samples]".
	X, Y string
	// LogX and LogY make an axis logarithmic (non-positive values are then an error).
	LogX, LogY bool
	// XTicks and YTicks label the ticks (nil: gonum's default, or LogTicks on a log axis).
	XTicks, YTicks plot.Ticker
}

// frame returns a new plot with the axes set up.
func (a Axes) frame() *plot.Plot {
	p := New(a.Title, a.X, a.Y)
	p.X.Tick.Marker, p.Y.Tick.Marker = NiceTicks{}, NiceTicks{}
	if a.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = LogTicks{}
	}
	if a.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = LogTicks{}
	}
	if a.XTicks != nil {
		p.X.Tick.Marker = a.XTicks
	}
	if a.YTicks != nil {
		p.Y.Tick.Marker = a.YTicks
	}
	return p
}

// ErrNoData is returned for a chart with nothing to draw.
var ErrNoData = errors.New("charts: nothing to draw")

// checkPoints verifies that a series has an origin and its points can be drawn on the axes.
func (a Axes) checkPoints(s Series) error {
	if err := checkOrigin(a.Title, fmt.Sprintf("series %q", s.Name), s.Source); err != nil {
		return err
	}
	for _, pt := range s.Points {
		if math.IsNaN(pt.X) || math.IsNaN(pt.Y) || math.IsInf(pt.X, 0) || math.IsInf(pt.Y, 0) {
			return fmt.Errorf("charts: %q: series %q has a point that is not a number (%v, %v)", a.Title, s.Name, pt.X, pt.Y)
		}
		if a.LogX && pt.X <= 0 {
			return fmt.Errorf("charts: %q: series %q has x = %v, which a log axis cannot show", a.Title, s.Name, pt.X)
		}
		if pt.Hi > 0 && (pt.Lo <= 0 || pt.Lo > pt.Hi || math.IsNaN(pt.Lo) || math.IsInf(pt.Hi, 0)) {
			return fmt.Errorf("charts: %q: series %q has a band %v–%v at x = %v that is not low–high", a.Title, s.Name, pt.Lo, pt.Hi, pt.X)
		}
		if a.LogY && pt.Y <= 0 {
			return fmt.Errorf("charts: %q: series %q has y = %v at x = %v, which a log axis cannot show", a.Title, s.Name, pt.Y, pt.X)
		}
	}
	return nil
}

// Lines draws series as lines with markers on the given axes, one color per series, styled by
// source (measured live solid, recorded dashed, model dotted), each named in the legend.
func Lines(a Axes, series ...Series) (*plot.Plot, error) {
	p := a.frame()
	if err := addLines(p, a, series, 0); err != nil {
		return nil, err
	}
	pad(p, a)
	return p, nil
}

// addLines adds the series to p, colors starting at palette index first.
func addLines(p *plot.Plot, a Axes, series []Series, first int) error {
	n := 0
	disturbedInLegend := false
	for i, s := range series {
		if err := a.checkPoints(s); err != nil {
			return err
		}
		if len(s.Points) == 0 {
			continue
		}
		n++
		if s.Banded() {
			poly, err := bandPolygon(s, first+i)
			if err != nil {
				return fmt.Errorf("charts: %q: %w", s.Name, err)
			}
			p.Add(poly)
			AddLegend(p, s.Legend(), poly)
			continue
		}
		xys := toXYs(s.Sorted())
		l, err := plotter.NewLine(xys)
		if err != nil {
			return fmt.Errorf("charts: %q: %w", s.Name, err)
		}
		l.LineStyle = lineStyle(first+i, s.Source)
		p.Add(l)
		thumbs := []plot.Thumbnailer{l}
		if gs := glyphStyle(first+i, s.Source); gs.Radius > 0 {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return fmt.Errorf("charts: %q: %w", s.Name, err)
			}
			sc.GlyphStyle = gs
			p.Add(sc)
			thumbs = append(thumbs, sc)
		}
		AddLegend(p, s.Legend(), thumbs...)
		var bad plotter.XYs
		for _, pt := range s.Sorted() {
			if pt.Disturbed {
				bad = append(bad, plotter.XY{X: pt.X, Y: pt.Y})
			}
		}
		if len(bad) > 0 {
			sc, err := plotter.NewScatter(bad)
			if err != nil {
				return fmt.Errorf("charts: %q: %w", s.Name, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 0xd9, G: 0x5f, B: 0x02, A: 0xff}, Radius: vg.Points(6), Shape: draw.CrossGlyph{}}
			p.Add(sc)
			if !disturbedInLegend {
				AddLegend(p, DisturbedLegend, sc)
				disturbedInLegend = true
			}
		}
	}
	if n == 0 {
		return fmt.Errorf("%w in %q: no series has points", ErrNoData, a.Title)
	}
	fromSeries(p, series)
	return nil
}

// bandPolygon is the shaded area between a banded series' Lo and Hi ends (points without a band
// contribute Y to both), outlined dotted like every model.
func bandPolygon(s Series, i int) (*plotter.Polygon, error) {
	pts := s.Sorted()
	ring := make(plotter.XYs, 0, 2*len(pts))
	for _, pt := range pts {
		lo := pt.Y
		if pt.Hi > 0 {
			lo = pt.Lo
		}
		ring = append(ring, plotter.XY{X: pt.X, Y: lo})
	}
	for j := len(pts) - 1; j >= 0; j-- {
		hi := pts[j].Y
		if pts[j].Hi > 0 {
			hi = pts[j].Hi
		}
		ring = append(ring, plotter.XY{X: pts[j].X, Y: hi})
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	poly.Color = bandFill(ColorOf(i))
	poly.LineStyle = lineStyle(i, Model)
	poly.LineStyle.Width = vg.Points(1)
	return poly, nil
}

// bandFill is a model band's translucent fill.
func bandFill(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 70}
}

func toXYs(pts []XY) plotter.XYs {
	xys := make(plotter.XYs, len(pts))
	for i, pt := range pts {
		xys[i].X, xys[i].Y = pt.X, pt.Y
	}
	return xys
}

// pad widens log axes a little so points do not sit on the frame.
func pad(p *plot.Plot, a Axes) {
	if a.LogX && p.X.Min > 0 {
		p.X.Min, p.X.Max = p.X.Min/1.25, p.X.Max*1.25
	}
	if a.LogY && p.Y.Min > 0 {
		p.Y.Min, p.Y.Max = p.Y.Min/1.4, p.Y.Max*1.4
	}
}

// vline is a vertical annotation line across the data area, with a label at its top.
type vline struct {
	x     float64
	label string
	style draw.LineStyle
}

// Plot draws the line and its label.
func (v vline) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(v.x)
	if !c.ContainsX(x) {
		return
	}
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
	if v.label != "" {
		sty := textStyle(9)
		sty.Color = v.style.Color
		sty.YAlign = draw.YTop
		at := vg.Point{X: x + vg.Points(3), Y: c.Max.Y - vg.Points(2)}
		if w := sty.Rectangle(v.label).Size().X; at.X+w > c.Max.X {
			sty.XAlign = draw.XRight
			at.X = x - vg.Points(3)
		}
		c.FillText(sty, at, v.label)
	}
}

// DataRange covers the line's x only.
func (v vline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return v.x, v.x, math.Inf(1), math.Inf(-1)
}

// Thumbnail draws the line's legend sample.
func (v vline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(v.style, c.Min.X, y, c.Max.X, y)
}

// hline is a horizontal annotation line across the data area, labeled at its right end.
type hline struct {
	y     float64
	label string
	style draw.LineStyle
}

// Plot draws the line and its label.
func (h hline) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	y := trY(h.y)
	if !c.ContainsY(y) {
		return
	}
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
	if h.label != "" {
		sty := textStyle(9)
		sty.Color = h.style.Color
		sty.XAlign = draw.XRight
		sty.YAlign = draw.YBottom
		c.FillText(sty, vg.Point{X: c.Max.X - vg.Points(3), Y: y + vg.Points(2)}, h.label)
	}
}

// DataRange covers the line's y only.
func (h hline) DataRange() (xmin, xmax, ymin, ymax float64) {
	return math.Inf(1), math.Inf(-1), h.y, h.y
}

// Thumbnail draws the line's legend sample.
func (h hline) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(h.style, c.Min.X, y, c.Max.X, y)
}

// annotationStyle is the thin dashed gray of crossover and limit lines.
func annotationStyle(clr color.Color) draw.LineStyle {
	if clr == nil {
		clr = Muted
	}
	return draw.LineStyle{Color: clr, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
}
