package precision

import (
	"fmt"
	"strings"

	"github.com/gomlx/compute/dtypes"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// The Read… functions say in one sentence what the learner's kept results show, so the notebook's
// prose never states a live result before it is measured: the sentence is computed from the
// measurement in the cell's output.

// ReadDTypes says, per device measured live, each precision's time against float32's at the same
// size, and whether 16-bit came out faster.
func ReadDTypes(rs []results.Result) string {
	var lines []string
	for _, dev := range liveDevices(rs) {
		var f32 *results.Result
		for i, r := range rs {
			if r.Provenance.Device == dev && !r.Provenance.Recorded && r.Precision == "float32" {
				f32 = &rs[i]
			}
		}
		if f32 == nil || f32.Seconds() <= 0 {
			continue
		}
		var parts []string
		var best *speedReading // the fastest 16-bit row against float32
		for _, r := range rs {
			if r.Provenance.Device != dev || r.Provenance.Recorded || r.Precision == "float32" {
				continue
			}
			ratio := r.Seconds() / f32.Seconds()
			parts = append(parts, fmt.Sprintf("%s %.2f×", r.Precision, ratio))
			if (r.DType == "bfloat16" || r.DType == "float16") && ratio > 0 && (best == nil || 1/ratio > best.Speedup) {
				s := readingOn(dev, *f32, r)
				best = &s
			}
		}
		verdict := "no 16-bit type was measured"
		if best != nil {
			verdict = best.String()
		}
		lines = append(lines, fmt.Sprintf("Your %s at n=%d: time vs float32 — %s. %s", dev, f32.Params["n"], strings.Join(parts, ", "), verdict))
	}
	if len(lines) == 0 {
		return "No live float32 matmul among the kept results: run the throughput cell above first."
	}
	return strings.Join(lines, "\n")
}

// readingOn reads a 16-bit row against float32's on device dev: on the CPU with the course's model
// and its flags (unitsReading, as the matrix-units table), elsewhere with the peaks the results carry.
func readingOn(dev string, f32, r16 results.Result) speedReading {
	if dev == devices.CPU {
		return unitsReading(f32, r16)
	}
	s := speedReading{Precision: r16.Precision, Speedup: f32.Seconds() / r16.Seconds(), PeakRatio: 1}
	if f32.PeakFLOPS > 0 && r16.PeakFLOPS > 0 {
		s.PeakRatio = r16.PeakFLOPS / f32.PeakFLOPS
		s.F32Share, s.Share = f32.FLOPS()/f32.PeakFLOPS, r16.FLOPS()/r16.PeakFLOPS
	}
	if dev == devices.CUDA {
		s.Path = "tensor cores"
	}
	return s
}

// liveDevices are the devices of results measured live, in order.
func liveDevices(rs []results.Result) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range rs {
		if d := r.Provenance.Device; !r.Provenance.Recorded && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// ReadStudy says what the study found for the weight gradients without scaling: the smallest
// gradient at the first and last stage, and at the last how many became 0 or subnormal in float16
// and how many became 0 in bfloat16.
func ReadStudy(us []Underflow) string {
	first, last, ok := weightRows(us, 1)
	if !ok {
		return "The study is empty: run the study cell above first."
	}
	pct := func(n int) float64 { return 100 * float64(n) / float64(max(last.c.Nonzero32, 1)) }
	return fmt.Sprintf("Your study: from step %d to %d the loss fell %.2g → %.2g and the smallest weight gradient %.1e → %.1e. "+
		"After %d steps, unscaled, float16 lost %.2f%% of them (0) and kept %.2f%% as subnormals; bfloat16 lost %d.",
		first.steps, last.steps, first.loss, last.loss, first.c.MinAbs, last.c.MinAbs, last.steps, pct(last.c.Zero16), pct(last.c.Subnormal), last.c.ZeroBF16)
}

// ReadScaling says, for the weight gradients, the smallest scale that lost none of the last stage's
// in float16 (with its error), and the scales that overflowed at the first stage.
func ReadScaling(us []Underflow) string {
	if len(us) == 0 {
		return "The study is empty: run the study cell above first."
	}
	var b strings.Builder
	l := us[len(us)-1]
	rescued := false
	for _, c := range l.Rows {
		if c.What == us[0].Rows[0].What && c.Scale > 1 && c.Zero16 == 0 && c.Inf16 == 0 {
			fmt.Fprintf(&b, "Your study: after %d steps, S = %s is the smallest scale that loses no weight gradient in float16 (error %.1e after ÷S). ", l.Steps, scaleName(c.Scale), c.RelErr16)
			rescued = true
			break
		}
	}
	if !rescued {
		fmt.Fprintf(&b, "Your study: after %d steps, no scale tried keeps every weight gradient in float16. ", l.Steps)
	}
	var over []string // per scale, in order: how many values of each kind overflowed
	for _, sc := range Scales {
		var kinds []string
		for _, c := range us[0].Rows {
			if c.Scale == sc && c.Inf16 > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", c.Inf16, c.What))
			}
		}
		if len(kinds) > 0 {
			over = append(over, fmt.Sprintf("S = %s (%s)", scaleName(sc), strings.Join(kinds, ", ")))
		}
	}
	if len(over) == 0 {
		fmt.Fprintf(&b, "At step %d no scale overflowed.", us[0].Steps)
	} else {
		fmt.Fprintf(&b, "At step %d, gradients overflowed to Inf at %s.", us[0].Steps, strings.Join(over, "; "))
	}
	return b.String()
}

type stage struct {
	steps int
	loss  float64
	c     Census
}

// weightRows are the first and last stage's census of the first gradient kind at scale s.
func weightRows(us []Underflow, s float64) (first, last stage, ok bool) {
	find := func(u Underflow) (stage, bool) {
		for _, c := range u.Rows {
			if c.Scale == s && c.What == us[0].Rows[0].What {
				return stage{u.Steps, u.Loss, c}, true
			}
		}
		return stage{}, false
	}
	if len(us) == 0 || len(us[0].Rows) == 0 {
		return first, last, false
	}
	f, ok1 := find(us[0])
	l, ok2 := find(us[len(us)-1])
	return f, l, ok1 && ok2
}

// ReadMixed says, per device measured live, each 16-bit run's step time and final loss against
// float32's.
func ReadMixed(rs []results.Result) string {
	var lines []string
	for _, dev := range liveDevices(rs) {
		var f32 *results.Result
		for i, r := range rs {
			if r.Provenance.Device == dev && !r.Provenance.Recorded && r.DType == dtypes.Float32.String() {
				f32 = &rs[i]
			}
		}
		if f32 == nil || f32.Seconds() <= 0 || LossOf(*f32, MetricLoss) <= 0 {
			continue
		}
		var parts []string
		for _, r := range rs {
			if r.Provenance.Device != dev || r.Provenance.Recorded || r.DType == f32.DType {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s: %.2f× float32's step time, loss %+.2f%%, activations %.2f×", r.DType,
				r.Seconds()/f32.Seconds(), 100*(LossOf(r, MetricLoss)/LossOf(*f32, MetricLoss)-1),
				metric(r, MetricActivationBytes)/max(metric(*f32, MetricActivationBytes), 1)))
		}
		lines = append(lines, fmt.Sprintf("Your %s: %s.", dev, strings.Join(parts, "; ")))
	}
	if len(lines) == 0 {
		return "No live float32 run among the kept results: run the training cell above first."
	}
	return strings.Join(lines, "\n")
}
