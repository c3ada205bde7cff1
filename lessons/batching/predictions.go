package batching

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
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
	// PredictGPUFlat: the GPU model's step at the sweep's largest laptop batch against batch 1.
	PredictGPUFlat = predict.Question{
		Key:   "03/h200-narrow-512-over-1",
		Text:  "GPU (answered by the GPU model, a model): on an H200, how many times longer will the narrow step (hidden 64) take at batch 512 than at batch 1? (a factor)",
		Model: "GPU model",
		Unit:  "×",
		Answer: func() (float64, error) {
			lo := gpumodel.StepEstimate(experiments.CourseMLP(1, Narrow)).Mid().Seconds()
			hi := gpumodel.StepEstimate(experiments.CourseMLP(512, Narrow)).Mid().Seconds()
			if lo <= 0 {
				return 0, fmt.Errorf("%s: the GPU model gave no time for the batch-1 step", Lesson)
			}
			return hi / lo, nil
		},
		Why: "Model (pkg/model/gpumodel). The step is a chain of small kernels, each paying microseconds to launch: 512× the samples is still far too little arithmetic or traffic to show under those fixed costs. Flat here means overhead-bound.",
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

// MineNarrow is lesson 03's recall card from the learner's own batch speedup.
var MineNarrow = predict.Mine("03/mine-narrow", PredictNarrowSpeedup,
	func(s float64) string {
		return fmt.Sprintf("Hidden 64 on xla:cpu trained %s× more samples per second at the sweep's largest batch (%d) than at batch 1. How many times longer did one step at batch %d take than at batch 1?", predict.Num(s), largestBatch(), largestBatch())
	},
	func(s float64) string {
		return fmt.Sprintf("%d× the samples at %s× the rate: the step took %d / %s ≈ %s× as long — far less than %d×, because at batch 1 the step is mostly fixed cost.", largestBatch(), predict.Num(s), largestBatch(), predict.Num(s), predict.Num(float64(largestBatch())/s), largestBatch())
	})

func largestBatch() int {
	rs, err := predict.Kept(KeepName("batch-64"), devices.CPU)
	if err != nil {
		return 0
	}
	_, hi, _ := predict.Ends(rs, "batch")
	return hi.Params["batch"]
}
