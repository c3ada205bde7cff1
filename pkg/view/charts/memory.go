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

// Memory is what training one model needs at one batch size, in bytes, by kind.
type Memory struct {
	// Label names the bar: "batch 64".
	Label string
	// Weights, Gradients, Optimizer (state, e.g. Adam's two moments), Activations and Workspace
	// (transient buffers such as the logits' gradient; drawn only when some bar has it), in bytes.
	Weights, Gradients, Optimizer, Activations, Workspace float64
	// Measured is the memory measured in use for the same run, in bytes (0: not measured).
	Measured float64
}

// Total is the sum of the kinds.
func (m Memory) Total() float64 {
	return m.Weights + m.Gradients + m.Optimizer + m.Activations + m.Workspace
}

// Limit is a horizontal line on a memory chart: a device's capacity.
type Limit struct {
	// Label names it with its source: "H200 memory (datasheet)".
	Label string
	Bytes float64 // the capacity in bytes
}

// MemoryChart describes a stacked memory bar chart.
type MemoryChart struct {
	Title string // the chart's title
	// Bars, one per batch size (or model), stacked weights / gradients / optimizer / activations.
	Bars []Memory
	// MeasuredName names the Measured markers in the legend, with their source:
	// "GPU memory in use (NVML) — measured live". Empty: "measured in use".
	MeasuredName string
	// Limits are capacities drawn as dashed lines.
	Limits []Limit
	// Origins say where the bars (usually units.Formula: bytes from the shapes) and the measured
	// markers come from; display shows them as badges. MemoryBars refuses a chart without one.
	Origins []units.Origin
}

// MemoryBars draws stacked bars of the memory each kind takes, per bar, in binary units chosen from
// the largest value (KiB, MiB, GiB); measured totals as black diamonds; limits as dashed lines.
func MemoryBars(m MemoryChart) (*plot.Plot, error) {
	if len(m.Bars) == 0 {
		return nil, fmt.Errorf("%w in %q: no bars", ErrNoData, m.Title)
	}
	if len(m.Origins) == 0 {
		return nil, fmt.Errorf("charts: %q: its bars %w", m.Title, ErrNoOrigin)
	}
	top := 0.0
	for _, b := range m.Bars {
		for _, v := range []float64{b.Weights, b.Gradients, b.Optimizer, b.Activations, b.Workspace, b.Measured} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("charts: %q: bar %q has an invalid byte count %v", m.Title, b.Label, v)
			}
		}
		top = math.Max(top, math.Max(b.Total(), b.Measured))
	}
	for _, l := range m.Limits {
		top = math.Max(top, l.Bytes)
	}
	unit, name := binaryScale(top)

	p := New(m.Title, "", "memory ["+name+"]")
	kinds := []struct {
		name string
		get  func(Memory) float64
	}{
		{"weights", func(b Memory) float64 { return b.Weights }},
		{"gradients", func(b Memory) float64 { return b.Gradients }},
		{"optimizer state", func(b Memory) float64 { return b.Optimizer }},
		{"activations", func(b Memory) float64 { return b.Activations }},
	}
	for _, b := range m.Bars {
		if b.Workspace > 0 {
			kinds = append(kinds, struct {
				name string
				get  func(Memory) float64
			}{"workspace", func(b Memory) float64 { return b.Workspace }})
			break
		}
	}
	width := vg.Points(math.Min(48, 320/float64(len(m.Bars))))
	var below *plotter.BarChart
	for k, kind := range kinds {
		vals := make(plotter.Values, len(m.Bars))
		for i, b := range m.Bars {
			vals[i] = kind.get(b) / unit
		}
		bc, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, fmt.Errorf("charts: %q: %w", m.Title, err)
		}
		bc.Color = []color.Color{ColorOf(0), ColorOf(1), ColorOf(2), ColorOf(4), ColorOf(5)}[k]
		bc.LineStyle.Width = vg.Points(0.5)
		bc.LineStyle.Color = Ink
		if below != nil {
			bc.StackOn(below)
		}
		p.Add(bc)
		AddLegend(p, kind.name+" (computed from shapes)", bc)
		below = bc
	}
	var measured plotter.XYs
	for i, b := range m.Bars {
		if b.Measured > 0 {
			measured = append(measured, plotter.XY{X: float64(i), Y: b.Measured / unit})
		}
	}
	if len(measured) > 0 {
		sc, err := plotter.NewScatter(measured)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: Ink, Radius: vg.Points(5), Shape: diamond{}}
		p.Add(sc)
		n := m.MeasuredName
		if n == "" {
			n = "measured in use"
		}
		AddLegend(p, n, sc)
	}
	for _, l := range m.Limits {
		h := hline{y: l.Bytes / unit, label: fmt.Sprintf("%s: %s", l.Label, units.Bytes(l.Bytes)), style: annotationStyle(ColorOf(1))}
		p.Add(h)
		AddLegend(p, l.Label, h)
	}
	labels := make([]string, len(m.Bars))
	for i, b := range m.Bars {
		labels[i] = b.Label
	}
	p.NominalX(labels...)
	p.Y.Min = 0
	p.Y.Max *= 1.08
	From(p, m.Origins...)
	return p, nil
}

// binaryScale is the binary unit an axis reaching top bytes is labeled in: its size and name.
func binaryScale(top float64) (unit float64, name string) {
	unit, name = 1, "bytes"
	for i, u := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if v := math.Ldexp(1, 10*(i+1)); top >= v {
			unit, name = v, u
		}
	}
	return unit, name
}
