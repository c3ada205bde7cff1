package bigpicture

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/predict"
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
