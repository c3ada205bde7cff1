package charts

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default chart size (the legend, drawn under the plot, adds to the height).
const (
	Width  = 7 * vg.Inch
	Height = 4 * vg.Inch
)

// Palette is the series colors, in order (colorblind-safe Okabe–Ito).
var Palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{0, 158, 115, 255},   // green
	color.RGBA{204, 121, 167, 255}, // purple
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{86, 180, 233, 255},  // sky
	color.RGBA{0, 0, 0, 255},       // black
}

// ColorOf returns the i-th palette color (cycling).
func ColorOf(i int) color.Color { return Palette[i%len(Palette)] }

// Hex returns a color as a CSS hex string, e.g. "#0072b2".
func Hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// Ink is the color of text, axes and annotations.
var Ink color.Color = color.RGBA{34, 34, 34, 255}

// Muted is the color of secondary annotations (crossover and limit lines).
var Muted color.Color = color.RGBA{110, 110, 110, 255}

// Font is the typeface of every chart's text (metric-compatible with Arial and Helvetica).
var Font = font.Font{Typeface: "Liberation", Variant: "Sans"}

// textStyle returns the charts' text style at a size in points.
func textStyle(size float64) text.Style {
	return text.Style{
		Color:   Ink,
		Font:    font.From(Font, font.Length(size)),
		Handler: plot.DefaultTextHandler,
		XAlign:  draw.XLeft,
		YAlign:  draw.YCenter,
	}
}

// New returns a plot with the course's style: title, axis labels (with units), sans-serif text,
// grid, white background.
func New(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(Font, 13)
	p.Title.TextStyle.Color = Ink
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(Font, 11)
		a.Label.TextStyle.Color = Ink
		a.Tick.Label.Font = font.From(Font, 9.5)
		a.Tick.Label.Color = Ink
		a.Color = Ink
		a.Tick.Color = Ink
	}
	p.Legend.TextStyle.Font = font.From(Font, 10)
	p.Legend.TextStyle.Color = Ink
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.ThumbnailWidth = vg.Points(28)
	p.Legend.Padding = vg.Points(2.5)
	p.X.Tick.Marker, p.Y.Tick.Marker = NiceTicks{}, NiceTicks{}
	p.BackgroundColor = color.White
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

// Bar is one labeled value of a bar chart, with where it comes from.
type Bar struct {
	Label  string  // the bar's name under the axis
	Value  float64 // its height, in the y axis' unit
	Source Source  // measured live, recorded, model or emulated; the zero value is refused
	Note   string  // for Describe: the recording's device and date, the model's assumptions
}

// Bars draws a bar chart of labeled values. Every bar must say where it comes from (ErrNoOrigin
// otherwise): when all bars share one origin the x axis says it once ("origin: measured live"),
// otherwise each bar's name carries its own on a second line.
func Bars(title, yLabel string, bars []Bar) (*plot.Plot, error) {
	if len(bars) == 0 {
		return nil, fmt.Errorf("charts: %q has no bars", title)
	}
	same := true
	for _, b := range bars {
		if err := checkOrigin(title, "bar "+b.Label, b.Source); err != nil {
			return nil, err
		}
		same = same && b.Source == bars[0].Source && b.Note == bars[0].Note
	}
	xLabel := ""
	if same {
		xLabel = "origin: " + bars[0].Source.Describe(bars[0].Note)
	}
	p := New(title, xLabel, yLabel)
	names := make([]string, len(bars))
	for i, b := range bars {
		names[i] = b.Label
		if !same {
			names[i] += "\n(" + b.Source.String() + ")"
		}
		one := make(plotter.Values, len(bars))
		one[i] = b.Value
		bc, err := plotter.NewBarChart(one, vg.Points(40))
		if err != nil {
			return nil, fmt.Errorf("charts: %w", err)
		}
		bc.Color = ColorOf(i)
		bc.LineStyle.Width = 0
		p.Add(bc)
	}
	p.NominalX(names...)
	p.Y.Min = 0
	// Leave headroom above the tallest bar so it does not look clipped by the frame.
	for _, b := range bars {
		p.Y.Max = max(p.Y.Max, 1.1*b.Value)
		From(p, b.Source.Origin(b.Note))
	}
	return p, nil
}

// SVG renders a plot to SVG bytes at the given size (0 for the default), legend under the plot.
func SVG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	w, h, lh := size(p, w, h)
	defer fitText(p, w)()
	c := vgsvg.New(w, h+lh)
	drawChart(p, draw.New(c), lh)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("charts: rendering SVG: %w", err)
	}
	// gonum/plot names the font without a fallback; browsers without Liberation Sans would pick a
	// serif font. Name the metric-compatible fallbacks.
	out := strings.ReplaceAll(buf.String(), "font-family:Liberation Sans;",
		"font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")
	// Scale down with the output area rather than overflow it (the viewBox keeps the drawing whole).
	out = strings.Replace(out, "<svg width=", `<svg style="max-width:100%;height:auto" width=`, 1)
	return []byte(out), nil
}

// PNG renders a plot to PNG bytes at 96 dpi (0 for the default size), legend under the plot.
func PNG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	w, h, lh := size(p, w, h)
	defer fitText(p, w)()
	c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h+lh), vgimg.UseDPI(96))}
	drawChart(p, draw.New(c), lh)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("charts: rendering PNG: %w", err)
	}
	return buf.Bytes(), nil
}

// legendPad is the space around the legend strip; margin the space around the plot.
const (
	legendPad = vg.Length(8)
	margin    = vg.Length(6)
)

// size fills in the default size and returns the height of the legend strip.
func size(p *plot.Plot, w, h vg.Length) (vg.Length, vg.Length, vg.Length) {
	if w == 0 {
		w = Width
	}
	if h == 0 {
		h = Height
	}
	legend := p.Legend.Rectangle(draw.Canvas{}).Size()
	lh := legend.Y
	if lh > 0 {
		lh += 2 * legendPad
	}
	return w, h, lh
}

// LegendTextWidth is the widest a legend entry's text may be on a chart of the default width: the
// strip under the plot less its padding and the entry's thumbnail. AddLegend wraps longer text.
func LegendTextWidth(p *plot.Plot) vg.Length {
	return Width - 4*legendPad - p.Legend.ThumbnailWidth - p.Legend.TextStyle.Width("M")
}

// AddLegend adds a legend entry whose text is wrapped onto several lines to fit the chart's width
// (a chart never grows wider than Width for a long entry, which would overflow a notebook's output).
func AddLegend(p *plot.Plot, name string, thumbs ...plot.Thumbnailer) {
	p.Legend.Add(Wrap(p.Legend.TextStyle, name, LegendTextWidth(p)), thumbs...)
}

// Wrap breaks text at spaces into lines no wider than width in style sty (existing line breaks are
// kept; a single word wider than width stays whole on its line).
func Wrap(sty text.Style, s string, width vg.Length) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case sty.Width(line+" "+word) <= width:
				line += " " + word
			default:
				out = append(out, line)
				line = word
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// fitText wraps the title to the canvas width w (drawChart wraps the x label to the data area; the
// y label runs along the axis, the tick labels are short) and returns a function that restores it.
func fitText(p *plot.Plot, w vg.Length) (restore func()) {
	title := p.Title.Text
	p.Title.Text = Wrap(p.Title.TextStyle, title, w-4*margin)
	return func() { p.Title.Text = title }
}

// drawChart draws the plot in the top of c and its legend in a strip of height lh under it.
func drawChart(p *plot.Plot, c draw.Canvas, lh vg.Length) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	leg := p.Legend
	p.Legend = plot.NewLegend()
	defer func() { p.Legend = leg }()
	area := draw.Crop(c, margin, -margin, lh, -margin/2)
	// gonum/plot pads a log y axis as if its label sat at the arithmetic middle of the range (near
	// the top), leaving a gap under the title: draw the y label here instead, at the data's middle.
	if ylabel := p.Y.Label.Text; ylabel != "" {
		p.Y.Label.Text = ""
		defer func() { p.Y.Label.Text = ylabel }()
		sty := p.Y.Label.TextStyle
		h := sty.Height(ylabel)
		data := p.DataCanvas(draw.Crop(area, h+p.Y.Label.Padding, 0, 0, 0))
		sty.Rotation += math.Pi / 2
		area.FillText(sty, vg.Point{X: area.Min.X + h, Y: data.Center().Y}, ylabel)
		area = draw.Crop(area, h+p.Y.Label.Padding, 0, 0, 0)
	}
	// The x label is centered under the data area: wrap it to that width.
	if xlabel := p.X.Label.Text; xlabel != "" {
		p.X.Label.Text = Wrap(p.X.Label.TextStyle, xlabel, p.DataCanvas(area).Size().X)
		defer func() { p.X.Label.Text = xlabel }()
	}
	p.Draw(area)
	if lh == 0 {
		return
	}
	strip := c
	strip.Max.Y = c.Min.Y + lh
	strip = draw.Crop(strip, 3*legendPad, -legendPad, legendPad, -legendPad)
	leg.Top, leg.Left = true, true
	leg.Draw(strip)
}

// lighten mixes a color halfway with white (recorded lanes and bars).
func lighten(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8((v>>8 + 255) / 2) }
	return color.RGBA{mix(r), mix(g), mix(b), 255}
}
