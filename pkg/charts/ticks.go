package charts

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

var siPrefixes = []struct {
	exp    int
	prefix string
}{
	{-15, "f"}, {-12, "p"}, {-9, "n"}, {-6, "µ"}, {-3, "m"}, {0, ""},
	{3, "k"}, {6, "M"}, {9, "G"}, {12, "T"}, {15, "P"}, {18, "E"},
}

// SI formats v with an SI prefix and a unit, to three significant digits:
// SI(2.5e12, "FLOP/s") is "2.5 TFLOP/s", SI(0.0123, "s") is "12.3 ms", SI(0, "B") is "0 B".
func SI(v float64, unit string) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strings.TrimSpace(strconv.FormatFloat(v, 'g', 3, 64) + " " + unit)
	}
	a := math.Abs(v)
	i := 0
	for i+1 < len(siPrefixes) && a >= math.Pow10(siPrefixes[i+1].exp)*0.9995 {
		i++
	}
	m := v / math.Pow10(siPrefixes[i].exp)
	return strings.TrimSpace(num3(m) + " " + siPrefixes[i].prefix + unit)
}

// num3 formats a number in [1, 1000) to three significant digits without an exponent.
func num3(m float64) string {
	a := math.Abs(m)
	prec := 2
	switch {
	case a >= 99.95:
		prec = 0
	case a >= 9.995:
		prec = 1
	}
	s := strconv.FormatFloat(m, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Duration formats seconds with a time unit: Duration(0.0123) is "12.3 ms".
func Duration(seconds float64) string { return SI(seconds, "s") }

// Bytes formats a byte count with binary prefixes: Bytes(1536) is "1.5 KiB", Bytes(3<<30) is "3 GiB".
func Bytes(n float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	a := math.Abs(n)
	i := 0
	for i+1 < len(units) && a >= math.Ldexp(1, 10*(i+1))*0.9995 {
		i++
	}
	if i == 0 {
		return strconv.FormatFloat(n, 'f', -1, 64) + " B"
	}
	return num3(n/math.Ldexp(1, 10*i)) + " " + units[i]
}

// Plain formats a number for a label: whole numbers below 100 000 as they are (Plain(1024) is
// "1024"), others to three significant digits, with k/M/G from a thousand up (Plain(22.84) is
// "22.8", Plain(0.1) is "0.1", Plain(2.5e9) is "2.5G").
func Plain(v float64) string {
	a := math.Abs(v)
	switch {
	case v == math.Trunc(v) && a < 1e5:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a < 1000:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strings.ReplaceAll(SI(v, ""), " ", "")
}

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
		format = Plain
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
		format = Plain
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
	prec := max0(-int(math.Floor(math.Log10(step) + 1e-9)))
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

func max0(i int) int {
	if i < 0 {
		return 0
	}
	return i
}
