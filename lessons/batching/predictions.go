package batching

import (
	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/predict"
)

// Predictions of lesson 03.
var (
	// PredictNarrowSpeedup: how much more throughput a large batch buys on the CPU.
	PredictNarrowSpeedup = predict.Question{
		Key:  "03/narrow-speedup",
		Text: "Hidden 64 on xla:cpu: how many times more samples per second at the largest batch of the sweep than at batch 1? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(KeepName("batch-64"), devices.CPU)
			if err != nil {
				return 0, err
			}
			lo, hi, err := predict.Ends(rs, "batch")
			if err != nil {
				return 0, err
			}
			return (float64(hi.Params["batch"]) / hi.Seconds()) / (float64(lo.Params["batch"]) / lo.Seconds()), nil
		},
		Why: "At batch 1 the step is nearly all fixed cost; a large batch spreads that cost over many samples until the cores are busy.",
	}
	// PredictWidth: how the step time grows with the hidden width at a small batch.
	PredictWidth = predict.Question{
		Key:  "03/width-ratio",
		Text: "At batch 16 on xla:cpu, how many times longer will the widest layer's step take than the narrowest one's? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(KeepName("width"), devices.CPU)
			if err != nil {
				return 0, err
			}
			lo, hi, err := predict.Ends(rs, "hidden")
			if err != nil {
				return 0, err
			}
			return hi.Seconds() / lo.Seconds(), nil
		},
		Why: "The hidden×hidden product grows with the square of the width, but the narrow step is mostly fixed cost: the ratio stays far below the FLOP ratio.",
	}
)
