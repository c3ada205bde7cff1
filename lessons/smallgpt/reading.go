package smallgpt

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// StepReading is what the GPU model's kernel-by-kernel estimate of c's training step says, in
// numbers the prose can use: generated from the model, so the lesson's words follow its table.
type StepReading struct {
	GEMMFLOPs     float64    // share of the step's FLOPs in matrix products
	GEMMTime      [2]float64 // their share of the kernels' time, optimistic and pessimistic ends
	GEMMBound     Shares     // the products' (pessimistic) time by the bound the model gives each kernel
	Intensity     [2]float64 // the products' FLOP per byte, lowest and highest kernel
	Ridge         [2]float64 // the ridge of the rates the model sustains, lowest and highest end
	Rest          [2]float64 // the other kernels' share of the kernels' time
	RestBound     Shares     // the other kernels' (pessimistic) time by bound
	Fixed         [2]float64 // fixed costs' share of the step at each end
	Bound         string     // the whole step's: "compute-bound", "memory-bound" or "overhead-bound"
	Precision     string     // the products' precision on the GPU ("tf32")
	GPU, Band     string     // "H200 SXM", "7.26 ms – 11.8 ms"
	Width, Tokens int        // c's width and tokens per step
}

// Shares splits time by what bounds each kernel: compute, memory or the floor (fractions summing to 1).
type Shares struct{ Compute, Memory, Floor float64 }

func sharesOf(byBound map[string]float64) Shares {
	total := byBound["compute-bound"] + byBound["memory-bound"] + byBound["floor-bound"]
	if total == 0 {
		return Shares{}
	}
	return Shares{byBound["compute-bound"] / total, byBound["memory-bound"] / total, byBound["floor-bound"] / total}
}

// words says which bounds hold the time: "memory-bound", or "60 % compute-bound, 40 % memory-bound".
func (s Shares) words() string {
	var parts []string
	for _, p := range []struct {
		f    float64
		name string
	}{{s.Compute, "compute-bound"}, {s.Memory, "memory-bound"}, {s.Floor, "floor-bound"}} {
		if p.f >= 0.9 {
			return "**" + p.name + "**"
		}
		if p.f >= 0.005 {
			parts = append(parts, pctOne(p.f)+" "+p.name)
		}
	}
	return strings.Join(parts, ", ")
}

// ReadStep reads the GPU model's estimate of c's training step (gpumodel.GPTStepEstimate).
func ReadStep(c gpt.GPT) (StepReading, error) {
	if err := c.Validate(); err != nil {
		return StepReading{}, err
	}
	e := gpumodel.GPTStepEstimate(c)
	m := gpumodel.Default()
	r := StepReading{Precision: e.Work.Precision, GPU: e.GPU, Band: e.Band(), Width: c.Embed, Tokens: c.Batch * c.Context,
		Intensity: [2]float64{math.Inf(1), 0}}
	var flops, gemmFLOPs, kernels [2]float64
	var gemm, rest [2]float64
	gemmBound, restBound := map[string]float64{}, map[string]float64{}
	for _, k := range e.Kernels {
		flops[0] += k.FLOPs
		for end := range 2 {
			kernels[end] += k.Time[end]
		}
		if k.Class != gpumodel.ClassGEMM {
			for end := range 2 {
				rest[end] += k.Time[end]
			}
			restBound[k.Bound] += k.Time[1]
			continue
		}
		gemmFLOPs[0] += k.FLOPs
		for end := range 2 {
			gemm[end] += k.Time[end]
		}
		gemmBound[k.Bound] += k.Time[1]
		if k.Bytes > 0 {
			i := k.FLOPs / k.Bytes
			r.Intensity[0], r.Intensity[1] = math.Min(r.Intensity[0], i), math.Max(r.Intensity[1], i)
		}
	}
	if gemm[1] == 0 || kernels[0] == 0 || kernels[1] == 0 {
		return r, fmt.Errorf("%s: the modeled step of %s has no matrix-product kernels", Lesson, c)
	}
	r.GEMMFLOPs = gemmFLOPs[0] / flops[0]
	r.GEMMBound, r.RestBound = sharesOf(gemmBound), sharesOf(restBound)
	for end, t := range []float64{e.Low.Seconds(), e.High.Seconds()} {
		r.GEMMTime[end] = gemm[end] / kernels[end]
		r.Rest[end] = rest[end] / kernels[end]
		r.Fixed[end] = math.Max(0, t-kernels[end]) / t
	}
	rate, bw := m.GEMMRate(r.Precision), m.GPU.Bandwidth()
	r.Ridge = [2]float64{rate.High / (bw * m.A.BWFraction.High), rate.Low / (bw * m.A.BWFraction.Low)}
	if r.Ridge[0] > r.Ridge[1] {
		r.Ridge[0], r.Ridge[1] = r.Ridge[1], r.Ridge[0]
	}
	r.Bound = e.Bound
	if r.Bound == "launch-bound" {
		r.Bound = "overhead-bound"
	}
	return r, nil
}

// Markdown is the reading in words, for the cell under the table: the products' bound and share of
// the time, the rest's, the fixed costs' share and the whole step's regime.
func (r StepReading) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Read kernel by kernel** (modeled, not a measurement): the matrix products do %s of the FLOPs in %s of the time. ",
		pctOne(r.GEMMFLOPs), pctBand(r.GEMMTime))
	where := "around"
	switch {
	case r.Intensity[1] < r.Ridge[0]:
		where = "below"
	case r.Intensity[0] > r.Ridge[1]:
		where = "above"
	}
	fmt.Fprintf(&b, "At width %d in %s they reach %.0f–%.0f FLOP/B, %s the ridge of the rates the model sustains (%.0f–%.0f FLOP/B): ",
		r.Width, strings.ToUpper(r.Precision), r.Intensity[0], r.Intensity[1], where, r.Ridge[0], r.Ridge[1])
	switch {
	case r.GEMMBound.Compute >= 0.9:
		b.WriteString("**compute-bound**. ")
	case r.GEMMBound.Memory >= 0.9:
		b.WriteString("even the products are **memory-bound**. ")
	default:
		fmt.Fprintf(&b, "of their time, the model calls %s. ", r.GEMMBound.words())
	}
	fmt.Fprintf(&b, "The other kernels — softmax over the s×s scores, layer norms, GELU, Adam's update — take %s of the time: %s. ",
		pctBand(r.Rest), r.RestBound.words())
	fmt.Fprintf(&b, "Fixed costs (launches the GPU waits for, the per-execution cost) are %s of the step", pctBand(r.Fixed))
	if r.Fixed[1] < 0.05 {
		b.WriteString(": far too little for overhead-bound, which takes a much smaller step, like lesson 08's toy request")
	}
	fmt.Fprintf(&b, ". The whole step: **%s** — hence an MFU far below a large matmul's.", r.Bound)
	return b.String()
}

func pctOne(f float64) string {
	if f < 0.01 {
		return fmt.Sprintf("%.1f %%", 100*f)
	}
	return fmt.Sprintf("%.0f %%", 100*f)
}

func pctBand(f [2]float64) string {
	lo, hi := math.Min(f[0], f[1]), math.Max(f[0], f[1])
	if pctOne(lo) == pctOne(hi) {
		return pctOne(lo)
	}
	return strings.TrimSuffix(pctOne(lo), " %") + "–" + pctOne(hi)
}

// WhereTimeReading is ReadStep(c) in words (StepReading.Markdown).
func WhereTimeReading(c gpt.GPT) (string, error) {
	r, err := ReadStep(c)
	if err != nil {
		return "", err
	}
	return r.Markdown(), nil
}
