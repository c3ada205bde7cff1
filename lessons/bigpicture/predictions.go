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
	// PredictInference: batch-1 latency.
	PredictInference = predict.Question{
		Key:  "08/batch1-inference-us",
		Text: "One batch-1 inference request through the small model on xla:cpu: how many microseconds? (µs)",
		Unit: "µs",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(KeepInference, devices.CPU)
			if err != nil {
				return 0, err
			}
			return rs[0].Seconds() * 1e6, nil
		},
		Why: "At batch 1 there is little arithmetic: the time is dispatch and fixed costs, where a CPU close to the data competes well with a GPU.",
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
