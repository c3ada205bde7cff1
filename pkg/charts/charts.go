// Package charts draws the course's charts with gonum/plot and renders them to SVG or PNG bytes.
// It knows nothing about notebooks: package display shows what it renders.
//
// Charts use a white background and dark ink so they read the same in JupyterLab's light and dark
// themes, label every axis with its unit, and say in the title or legend whether a series was
// measured live, recorded on a named device, or comes from a datasheet or model.
package charts

import (
	"bytes"
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default chart size.
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

// New returns a plot with the course's style: title, axis labels (with units), white background.
func New(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = font.Length(13)
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.BackgroundColor = color.White
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p
}

// Bar is one labeled value of a bar chart.
type Bar struct {
	Label string
	Value float64
}

// Bars draws a bar chart of labeled values.
func Bars(title, yLabel string, bars []Bar) (*plot.Plot, error) {
	p := New(title, "", yLabel)
	vals := make(plotter.Values, len(bars))
	names := make([]string, len(bars))
	for i, b := range bars {
		vals[i] = b.Value
		names[i] = b.Label
	}
	for i := range bars {
		one := make(plotter.Values, len(bars))
		one[i] = vals[i]
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
	return p, nil
}

// SVG renders a plot to SVG bytes at the given size (0 for the default).
func SVG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	if w == 0 {
		w, h = Width, Height
	}
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("charts: rendering SVG: %w", err)
	}
	return buf.Bytes(), nil
}

// PNG renders a plot to PNG bytes at 96 dpi (0 for the default size).
func PNG(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	if w == 0 {
		w, h = Width, Height
	}
	c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96))}
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("charts: rendering PNG: %w", err)
	}
	return buf.Bytes(), nil
}
