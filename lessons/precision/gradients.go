package precision

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/train"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// Float16 limits (IEEE 754 binary16).
var (
	F16SmallestSubnormal = math.Ldexp(1, -24) // 2⁻²⁴ ≈ 5.96e-8: below about half of it a value rounds to 0
	F16SmallestNormal    = math.Ldexp(1, -14) // 2⁻¹⁴ ≈ 6.10e-5: below it precision is lost bit by bit
	F16Max               = workloads.F16Max   // above it a value becomes +Inf
)

// DefaultGradModel is small enough to train a thousand steps in about a second on a laptop CPU.
var DefaultGradModel = workloads.GradModel{Batch: 256, In: 32, Hidden: 128, Out: 4, Depth: 2, Seed: 1}

// Census counts what happens to float32 gradients of S·loss when they are stored in a 16-bit type and
// divided by S again in float32 (what a loss scaler does).
type Census struct {
	What       string      // which gradients
	Scale      float64     // the loss scale S
	N          int         // values
	Nonzero32  int         // non-zero in float32
	Zero16     int         // non-zero in float32, zero in float16: underflow, the gradient is lost
	Subnormal  int         // float16 subnormals (below 2⁻¹⁴): kept with fewer significant bits
	Inf16      int         // overflow to ±Inf in float16 (|S·g| > 65504): the scale was too large
	ZeroBF16   int         // non-zero in float32, zero in bfloat16
	RelErr16   float64     // ‖f16(S·g)/S − g‖ / ‖g‖ (Inf when any value overflowed)
	RelErrBF16 float64     // the same through bfloat16
	MinAbs     float64     // the smallest non-zero |g| (unscaled)
	Hist       map[int]int `json:",omitempty"` // non-zero |S·g| per power-of-two bucket (Histogram)
}

// Count takes a census of scaled gradients scaled (= S·g) against the unscaled float32 reference ref
// (= g, the gradients at S = 1) of the same model state.
func Count(what string, scale float64, scaled, ref []float32) Census {
	c := Census{What: what, Scale: scale, N: len(scaled), MinAbs: math.Inf(1)}
	var num16, numBF, den float64
	for i, v := range scaled {
		g := float64(ref[i])
		den += g * g
		if v != 0 {
			c.Nonzero32++
			c.MinAbs = math.Min(c.MinAbs, math.Abs(float64(v))/scale)
		}
		h := workloads.RoundF16(v)
		switch {
		case math.IsInf(h, 0):
			c.Inf16++
		case h == 0 && v != 0:
			c.Zero16++
		case h != 0 && math.Abs(h) < F16SmallestNormal:
			c.Subnormal++
		}
		b := workloads.RoundBF16(v)
		if b == 0 && v != 0 {
			c.ZeroBF16++
		}
		d16 := h/scale - g
		dbf := b/scale - g
		num16 += d16 * d16
		numBF += dbf * dbf
	}
	c.RelErr16, c.RelErrBF16 = math.Sqrt(num16/den), math.Sqrt(numBF/den)
	c.Hist = Histogram(scaled)
	if c.Inf16 > 0 {
		c.RelErr16 = -1 // meaningless: some values overflowed (JSON has no Inf)
	}
	if math.IsInf(c.MinAbs, 0) {
		c.MinAbs = 0
	}
	if den == 0 {
		c.RelErr16, c.RelErrBF16 = 0, 0
	}
	return c
}

// Scales are the loss scales the lesson tries: none, 2⁸, 2¹⁶ (GradScaler's starting scale) and 2²⁴
// (too much for some values).
var Scales = []float64{1, 1 << 8, 1 << 16, 1 << 24}

// Underflow is one census table row source: a training stage and the gradients' census at each scale.
type Underflow struct {
	Steps int     // SGD steps trained before taking the gradients
	Loss  float64 // the loss then
	Rows  []Census
}

// UnderflowStudy trains a workloads.GradModel on dev and, at each of the given step counts, takes the census
// of its parameter and activation gradients at every scale in Scales.
func UnderflowStudy(dev *devices.Device, m workloads.GradModel, at []int, lr float64) ([]Underflow, error) {
	lab, err := train.NewGradLab(dev, m)
	if err != nil {
		return nil, err
	}
	defer lab.Close()
	var out []Underflow
	for _, n := range at {
		if n > lab.Steps() {
			if _, err := lab.Train(n-lab.Steps(), lr); err != nil {
				return out, err
			}
		}
		ref, err := lab.Gradients(1)
		if err != nil {
			return out, err
		}
		u := Underflow{Steps: lab.Steps(), Loss: ref.Loss}
		for _, s := range Scales {
			g := ref
			if s != 1 {
				if g, err = lab.Gradients(s); err != nil {
					return out, err
				}
			}
			u.Rows = append(u.Rows, Count("weights and biases", s, g.Params, ref.Params), Count("layer outputs (backward flow)", s, g.Acts, ref.Acts))
		}
		out = append(out, u)
	}
	return out, nil
}

// UnscaledTable is the study's rows without loss scaling (S = 1), at every training stage.
func UnscaledTable(us []Underflow) units.Table {
	var keep []Underflow
	for _, u := range us {
		v := u
		v.Rows = nil
		for _, c := range u.Rows {
			if c.Scale == 1 {
				v.Rows = append(v.Rows, c)
			}
		}
		keep = append(keep, v)
	}
	return UnderflowTable(keep)
}

// ScalingTable is the study's rows at every loss scale, at its first (untrained) and last training
// stages: scaling rescues the small gradients of the trained model, and too large a scale overflows
// the large gradients of the untrained one.
func ScalingTable(us []Underflow) units.Table {
	if len(us) <= 1 {
		return UnderflowTable(us)
	}
	return UnderflowTable([]Underflow{us[0], us[len(us)-1]})
}

// KeepStudy saves a study for later cells (results.KeepValue).
func KeepStudy(us []Underflow) error { return results.KeepValue(KeepStudyName, us) }

// RecallStudy loads the study kept by KeepStudy.
func RecallStudy() ([]Underflow, error) { return results.RecallValue[[]Underflow](KeepStudyName) }

// KeepStudyName is the name the gradient study is kept under.
const KeepStudyName = Lesson + "-gradients"

// StudySteps are the training stages of Study: untrained, after 300 and after 3000 SGD steps.
var StudySteps = []int{0, 300, 3000}

// Study runs UnderflowStudy of the cell's model at its step counts on xla:cpu (lr 0.1), keeps it,
// and returns it (the lesson's is DefaultGradStudy). The gradients are a numeric property of the
// model, not of the device: any device computing them in float32 gives the same census up to
// rounding. A study Validate refuses is refused before anything is allocated.
func Study(g GradStudy) ([]Underflow, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return nil, err
	}
	us, err := UnderflowStudy(dev, g.Model(), g.Steps, 0.1)
	if err != nil {
		return us, err
	}
	return us, KeepStudy(us)
}

// GradientChart draws how many gradients of the last stage fall in each power-of-two bucket of |g|,
// with float16's limits as vertical lines.
func GradientChart(us []Underflow) (*plot.Plot, error) {
	if len(us) == 0 {
		return nil, fmt.Errorf("precision: no study")
	}
	u := us[len(us)-1]
	var series []charts.Series
	top := 1.0
	for _, c := range u.Rows {
		if c.Scale != 1 || c.Hist == nil {
			continue
		}
		s := charts.Series{Name: "gradients of " + c.What, Source: charts.Live}
		for e := -40; e <= 10; e++ {
			if n := c.Hist[e]; n > 0 {
				s.Points = append(s.Points, charts.XY{X: math.Ldexp(1.5, e), Y: float64(n)})
				top = math.Max(top, float64(n))
			}
		}
		series = append(series, s)
	}
	for _, l := range []struct {
		name string
		x    float64
	}{{"f16 smallest subnormal 2^-24 (below ~half of it: 0)", F16SmallestSubnormal}, {"f16 smallest normal 2^-14 (below: fewer bits)", F16SmallestNormal}} {
		series = append(series, charts.Series{Name: l.name, Source: charts.Model, Note: "IEEE 754 binary16",
			Points: []charts.XY{{X: l.x, Y: 1}, {X: l.x * 1.0001, Y: top}}})
	}
	return charts.Lines(charts.Axes{
		Title: fmt.Sprintf("float32 gradients after %d steps (loss %.2g), by magnitude", u.Steps, u.Loss),
		X:     "|gradient| (power-of-two buckets)", Y: "how many", LogX: true, LogY: true,
	}, series...)
}

// UnderflowTable renders a study as a table.
func UnderflowTable(us []Underflow) units.Table {
	var rows [][]string
	pct := func(n, of int) string {
		if of == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (%.2f%%)", n, 100*float64(n)/float64(of))
	}
	for _, u := range us {
		for _, c := range u.Rows {
			err16 := fmt.Sprintf("%.1e", c.RelErr16)
			if c.Inf16 > 0 {
				err16 = "∞ (overflow)"
			}
			rows = append(rows, []string{fmt.Sprintf("%d (loss %.2g)", u.Steps, u.Loss), c.What, scaleName(c.Scale),
				pct(c.Zero16, c.Nonzero32), pct(c.Subnormal, c.Nonzero32), fmt.Sprint(c.Inf16), err16,
				pct(c.ZeroBF16, c.Nonzero32), fmt.Sprintf("%.1e", c.RelErrBF16)})
		}
	}
	return units.Table{Origins: []units.Origin{units.MeasuredHere()}, Header: []string{"after steps", "gradients of", "loss scale S", "f16: became 0", "f16: subnormal", "f16: overflow",
		"f16 error after ÷S", "bf16: became 0", "bf16 error"}, Rows: rows}
}

func scaleName(s float64) string {
	if s == 1 {
		return "1 (none)"
	}
	return fmt.Sprintf("2^%d", int(math.Round(math.Log2(s))))
}

// Histogram counts |g| per power-of-two bucket (log2 floor) of the non-zero values.
func Histogram(g []float32) map[int]int {
	h := map[int]int{}
	for _, v := range g {
		if v != 0 {
			_, e := math.Frexp(math.Abs(float64(v)))
			h[e-1]++
		}
	}
	return h
}
