package charts

import (
	"math"
	"strconv"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"gonum.org/v1/plot"
)

// LogTicks is a plot.Ticker for log axes: a labeled tick at each power of ten and unlabeled minor
// ticks between; when the axis spans less than two decades the 2× and 5× ticks are labeled too.
type LogTicks struct {
	// Format labels a tick value (nil: Plain).
	Format func(float64) string
}

var _ plot.Ticker = LogTicks{}

// Ticks returns the ticks between min and max (both must be positive).
func (t LogTicks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= 0 || max < min {
		return nil
	}
	format := t.Format
	if format == nil {
		format = units.Plain
	}
	dense := math.Log10(max/min) < 2
	lo := math.Floor(math.Log10(min))
	hi := math.Ceil(math.Log10(max))
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		base := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := base * float64(m)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			tk := plot.Tick{Value: v}
			if m == 1 || (dense && (m == 2 || m == 5)) {
				tk.Label = format(v)
			}
			ticks = append(ticks, tk)
		}
	}
	return ticks
}

// Pow2Ticks is a plot.Ticker for log axes over powers of two (batch sizes, transfer sizes): a tick
// at each power of two, labeled every Stride-th so that at most about eight labels show.
type Pow2Ticks struct {
	// Format labels a tick value (nil: Plain).
	Format func(float64) string
}

var _ plot.Ticker = Pow2Ticks{}

// Ticks returns the ticks between min and max (both must be positive).
func (t Pow2Ticks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= 0 || max < min {
		return nil
	}
	format := t.Format
	if format == nil {
		format = units.Plain
	}
	lo := int(math.Ceil(math.Log2(min) - 1e-9))
	hi := int(math.Floor(math.Log2(max) + 1e-9))
	stride := 1
	for (hi-lo)/stride+1 > 8 {
		stride *= 2
	}
	var ticks []plot.Tick
	for e := lo; e <= hi; e++ {
		v := math.Ldexp(1, e)
		tk := plot.Tick{Value: v}
		if (e-lo)%stride == 0 {
			tk.Label = format(v)
		}
		ticks = append(ticks, tk)
	}
	if len(ticks) < 2 { // less than one octave: fall back to decades
		return LogTicks{Format: format}.Ticks(min, max)
	}
	return ticks
}

// PercentTicks is a plot.Ticker for 0–100 % axes: labeled every 20 %.
type PercentTicks struct{}

// Ticks returns ticks at 0, 20, …, 100 within [min, max].
func (PercentTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for v := 0.0; v <= 100; v += 10 {
		if v < min || v > max {
			continue
		}
		tk := plot.Tick{Value: v}
		if int(v)%20 == 0 {
			tk.Label = strconv.Itoa(int(v)) + "%"
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// NiceTicks is a plot.Ticker for linear axes: labeled ticks at steps of 1, 2 or 5 × 10ⁿ, about
// five to eight of them, with an unlabeled tick between each two.
type NiceTicks struct {
	// Format labels a tick value (nil: the shortest decimal at the step's precision).
	Format func(float64) string
}

var _ plot.Ticker = NiceTicks{}

// Ticks returns the ticks between min and max.
func (t NiceTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return nil
	}
	raw := (max - min) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	prec := -int(math.Floor(math.Log10(step) + 1e-9)) // decimals of the step; none for whole steps
	if prec < 0 {
		prec = 0
	}
	format := t.Format
	if format == nil {
		format = func(v float64) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	}
	var ticks []plot.Tick
	first := math.Ceil(min/step-1e-9) * step
	if half := first - step/2; half >= min {
		ticks = append(ticks, plot.Tick{Value: half})
	}
	for v := first; v <= max+step*1e-9; v += step {
		v := math.Round(v/step) * step
		if v == 0 {
			v = 0 // no "-0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: format(v)})
		if h := v + step/2; h <= max {
			ticks = append(ticks, plot.Tick{Value: h})
		}
	}
	return ticks
}
