package charts

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"gonum.org/v1/plot"
)

// TimeVsBatch draws time per step against batch size on log–log axes, a line per device (X: batch
// size in samples, Y: seconds), and marks with a dashed vertical line each batch size where two
// devices' curves cross (see Crossovers): below it one device is faster, above it the other.
func TimeVsBatch(title string, series []Series) (*plot.Plot, error) {
	a := Axes{
		Title: title, X: "batch size [samples]", Y: "time per step [s]",
		LogX: true, LogY: true, XTicks: Pow2Ticks{}, YTicks: LogTicks{Format: units.Duration},
	}
	p := a.frame()
	if err := addLines(p, a, series, 0); err != nil {
		return nil, err
	}
	markCrossovers(p, series, "batch")
	pad(p, a)
	return p, nil
}

// markCrossovers adds a labeled vertical line at each crossing of two series.
func markCrossovers(p *plot.Plot, series []Series, what string) {
	for i, c := range Crossovers(series) {
		v := vline{x: c.At.X, label: fmt.Sprintf("crossover ≈ %s", units.Plain(c.At.X)), style: annotationStyle(nil)}
		p.Add(v)
		if i < 4 {
			AddLegend(p, fmt.Sprintf("crossover: %s = %s at %s ≈ %s (above it %s is faster)",
				c.A, c.B, what, units.Plain(c.At.X), c.B), v)
		}
	}
}

// Throughput draws a rate against a size on log–log axes, a line per device: samples/s against
// batch size, FLOP/s against matrix size. xLabel and yUnit name the axes' units, e.g.
// Throughput("…", "batch size [samples]", "samples/s", s); Y values are in yUnit, labeled with
// SI prefixes (k, M, G, T).
func Throughput(title, xLabel, yUnit string, series []Series) (*plot.Plot, error) {
	a := Axes{
		Title: title, X: xLabel, Y: "throughput [" + yUnit + "]",
		LogX: true, LogY: true, XTicks: Pow2Ticks{},
		YTicks: LogTicks{Format: func(v float64) string { return units.SI(v, "") }},
	}
	return Lines(a, series...)
}

// Bandwidth draws transfer bandwidth against transfer size, a line per device and direction
// (host→device, device→host): X is the transfer size in bytes (log axis, binary units), Y the
// achieved bandwidth in bytes per second, shown in GB/s on a linear axis from zero.
func Bandwidth(title string, series []Series) (*plot.Plot, error) {
	scaled := make([]Series, len(series))
	for i, s := range series {
		scaled[i] = s
		scaled[i].Points = make([]XY, len(s.Points))
		for j, pt := range s.Points {
			scaled[i].Points[j] = XY{X: pt.X, Y: pt.Y / 1e9}
		}
	}
	a := Axes{
		Title: title, X: "transfer size [bytes]", Y: "bandwidth [GB/s]",
		LogX: true, XTicks: Pow2Ticks{Format: units.Bytes},
	}
	p, err := Lines(a, scaled...)
	if err != nil {
		return nil, err
	}
	p.Y.Min = 0
	p.Y.Max *= 1.08
	return p, nil
}
