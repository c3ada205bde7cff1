package roofline

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of lesson 02: ratios and regimes, two of three about the GPU (answered by the
// datasheet and the GPU model, labeled as such).
var (
	// PredictRidge: how far right of this CPU's ridge the H200's bf16 ridge sits.
	PredictRidge = predict.Question{
		Key:   "02/ridge-ratio",
		Model: "datasheet ÷ measured",
		Text:  "How many times higher is an H200's bfloat16 ridge point (from its datasheet) than this machine's measured float32 ridge? (answered by the datasheet over your measurement: a factor)",
		Unit:  "×",
		Answer: func() (float64, error) {
			r, err := measuredRidge()
			if err != nil {
				return 0, err
			}
			return sheet(H200).Ridge("bfloat16") / r, nil
		},
		Why: "A ridge is peak ÷ bandwidth, so the factor is the compute gap over the bandwidth gap: the H200's bf16 peak over this CPU's measured rate, divided by its HBM over this CPU's measured bandwidth. Against the source's server socket that is ~100× ÷ ~10×, about 10×; a few cores of a laptop or VM leave a wider compute gap, so the factor here is larger. Either way the GPU's ridge sits far to the right, and more of a step lands on its bandwidth slope.",
	}
	// PredictMatmul: how much faster (in FLOP/s) the largest matmul runs than the layernorm.
	PredictMatmul = predict.Question{
		Key:  "02/matmul-over-layernorm",
		Text: "On xla:cpu, how many times more FLOP/s will the largest matmul of the roofline points reach than the layernorm? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(KeepPoints, devices.CPU)
			if err != nil {
				return 0, err
			}
			var mm, ln results.Result
			for _, r := range rs {
				if r.Workload == "matmul" && r.FLOPs > mm.FLOPs {
					mm = r
				}
				if r.Workload == "layernorm" {
					ln = r
				}
			}
			if mm.FLOPs == 0 || ln.FLOPs == 0 || ln.FLOPS() == 0 {
				return 0, fmt.Errorf("%s: the kept roofline points need a matmul and a layernorm", Lesson)
			}
			return mm.FLOPS() / ln.FLOPS(), nil
		},
		Why: "The matmul sits right of the ridge, near the compute roof; the layernorm (≈ 1 FLOP/byte) sits on the bandwidth slope, where FLOP/s = intensity × bandwidth.",
	}
	// PredictFlatBatch: the GPU model's time for a batch-64 layer against batch 1.
	PredictFlatBatch = predict.Question{
		Key:   "02/h200-batch64-over-batch1",
		Text:  "GPU (answered by the GPU model, a model): on an H200, counting kernel time only, how many times longer does an 8192-wide bfloat16 layer's matmul take at batch 64 than at batch 1? (a factor)",
		Model: "GPU model",
		Unit:  "×",
		Answer: func() (float64, error) {
			return FlatBatchRatio(8192, 1, 64), nil
		},
		Why: "Model (pkg/model/gpumodel, kernel time only). Below the ridge batch the 128 MiB of weights are most of the bytes, read once whatever the batch (about 28 µs at 4.8 TB/s, far above a kernel's few-µs floor): 64× the FLOPs for about the same time. A flat time here is memory-bandwidth-bound, not overhead. (A 1024-wide layer's 2 MiB would take 0.4 µs: below that floor, and in the 50 MB L2.)",
	}
)

// FlatBatchRatio is the GPU model's (pkg/model/gpumodel, kernel time only) time for a hi×d @ d×d bfloat16
// matmul on the H200 over that of lo×d @ d×d: near 1 below the ridge batch.
func FlatBatchRatio(d, lo, hi int) float64 {
	m := gpumodel.Default()
	m.A = m.A.KernelOnly()
	t := func(b int) float64 {
		w, _ := bf16Estimate(b, d)
		return m.Estimate(gpumodel.MatMul(b, d, d, "bfloat16", w.Bytes())).Mid().Seconds()
	}
	return t(hi) / t(lo)
}

// measuredRidge is this machine's measured float32 ridge on xla:cpu (after the ridge cell).
func measuredRidge() (float64, error) {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return 0, err
	}
	c, ok := measure.CachedCeilings(dev)
	if !ok || c.Ridge("float32") == 0 {
		return 0, fmt.Errorf("%s: no ceilings measured for %s yet: run the ridge cell above first", Lesson, devices.CPU)
	}
	return c.Ridge("float32"), nil
}

// MineRidge is lesson 02's recall card from the learner's own ridge point.
var MineRidge = predict.Mine("02/mine-ridge", predict.Question{
	Key: "02/ridge-cpu", Text: "this machine's measured float32 ridge", Unit: "FLOP/byte",
	Answer: measuredRidge,
},
	func(r float64) string {
		return fmt.Sprintf("Your measured xla:cpu ridge is %s FLOP/byte. A float32 n×n matmul does about n/6 FLOPs per byte (2n³ FLOPs over 3·n²·4 bytes). From what n on is it compute-bound here?", predict.Num(r))
	},
	func(r float64) string {
		return fmt.Sprintf("n/6 ≥ %s, so n ≥ about %s. Smaller matmuls (and every layernorm) sit on the bandwidth slope of this machine.", predict.Num(r), predict.Num(6*r))
	})
