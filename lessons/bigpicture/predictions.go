package bigpicture

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of lesson 08.
var (
	// PredictMFU: how much of the matmul ceiling a whole training step uses.
	PredictMFU = predict.Question{
		Key:  "08/step-mfu",
		Text: "One whole training step on this machine: what percentage of its measured matmul ceiling will it achieve? (%)",
		Unit: "%",
		Answer: func() (float64, error) {
			rs, err := predict.KeptAny(KeepRates)
			if err != nil {
				return 0, err
			}
			_, ofCeiling := MFU(rs[0])
			if ofCeiling == 0 {
				return 0, fmt.Errorf("%s: the kept step has no measured ceiling to compare with", Lesson)
			}
			return ofCeiling, nil
		},
		Why: "A step is more than large matmuls: small ops, the backward pass's element-wise work and the update run well below the matmul ceiling.",
	}
	// PredictSpeedup: the source's H100 rate over its CPU socket's (a model: datasheets × the source's
	// utilizations).
	PredictSpeedup = predict.Question{
		Key:   "08/h100-vs-socket",
		Model: "datasheet model",
		Text:  "GPU (datasheet model): the source's run on one H100 at 40% MFU in bf16 against its 64-core CPU socket at 50% of float32 peak — how many times faster is the H100? (×)",
		Unit:  "×",
		// Answered from the datasheets once the rates cell has shown the table that holds it.
		Answer: func() (float64, error) {
			if _, err := predict.KeptAny(KeepRates); err != nil {
				return 0, err
			}
			return SourceSpeedup(), nil
		},
		Why: "A model from two datasheets: the H100's bf16 tensor-core peak is about 100× the socket's float32 peak, and the source assumes a somewhat lower share of it (40% against 50%).",
	}
	// PredictToy: one toy request measured here against the GPU model's time for it on an H200.
	PredictToy = predict.Question{
		Key:   "08/toy-cpu-vs-h200",
		Model: "measured ÷ GPU model",
		Text:  "One batch-1 request to the toy MLP: its time measured on this CPU over the GPU model's time for it on an H200 — how many times? (answered by your measurement over the GPU model: ×; below 1, the CPU is faster)",
		Unit:  "×",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(KeepInference, devices.CPU)
			if err != nil {
				return 0, err
			}
			return ToyVersusGPU(rs)
		},
		Why: "Measured here against a model (the H200's band, not a measurement; its geometric middle): the toy's bytes and FLOPs take well under a microsecond on the GPU, so its time there is launches and synchronization — fixed costs a CPU next to the data also pays, but no more.",
	}
)

// MineMFU is lesson 08's recall card from the learner's own MFU.
var MineMFU = predict.Mine("08/mine-mfu", PredictMFU,
	func(m float64) string {
		return fmt.Sprintf("Your training step reached %s%% of this machine's measured matmul ceiling. The source's run costs 2.1·10¹⁵ FLOPs per step: how long would one step take here at that MFU?", predict.Num(m))
	},
	func(m float64) string {
		rs, err := predict.KeptAny(KeepRates)
		if err != nil || rs[0].CeilingFLOPS == 0 {
			return "Divide 2.1·10¹⁵ by (MFU × the ceiling measured above)."
		}
		return fmt.Sprintf("2.1·10¹⁵ / (%s%% × %s FLOP/s) ≈ %s s per step.", predict.Num(m), predict.Num(rs[0].CeilingFLOPS), predict.Num(2.1e15/(m/100*rs[0].CeilingFLOPS)))
	})
