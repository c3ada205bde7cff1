package memory

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of lesson 06 answered by the batch sweep (SweepHere).
var (
	// PredictGrowth: how memory scales with the batch.
	PredictGrowth = predict.Question{
		Key:  "06/batch-memory-growth",
		Text: "The memory one training step adds, at the largest batch of the sweep against the smallest: how many times more? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			lo, hi, err := sweepEnds()
			if err != nil {
				return 0, err
			}
			return metric(hi, ParamMeasured) / float64(max(1, metric(lo, ParamMeasured))), nil
		},
		Why: "Weights, gradients and Adam's moments do not depend on the batch; activations do. The ratio stays far below the batch ratio while the fixed part dominates.",
	}
	// PredictLargest: the activations' share of the largest step, from the shapes of the sweep's
	// largest batch (a ratio, whatever the machine).
	PredictLargest = predict.Question{
		Key:   "06/largest-activation-share",
		Model: "formula",
		Text:  "At the largest batch of the sweep, what percentage of the step's memory by the formula (weights, gradients, Adam state, activations, batch) will the activations be? (%)",
		Unit:  "%",
		Answer: func() (float64, error) {
			_, hi, err := sweepEnds()
			if err != nil {
				return 0, err
			}
			m := modelOf(hi).Memory()
			return 100 * float64(m.Activations) / float64(max(1, m.Total())), nil
		},
		Why: "Weights, gradients and Adam's moments are 16 bytes per parameter at any batch; the activations grow with every sample, so past some batch they are most of the step.",
	}
	// largestMB is the memory the step at the largest batch added, in MB: the measurement behind
	// MineLargest (not asked as a prediction: an absolute number depends on the machine).
	largestMB = predict.Question{
		Key:  "06/largest-step-mb",
		Text: "the memory the step at the largest batch added (MB)",
		Unit: "MB",
		Answer: func() (float64, error) {
			_, hi, err := sweepEnds()
			if err != nil {
				return 0, err
			}
			return metric(hi, ParamMeasured) / 1e6, nil
		},
	}
)

func sweepEnds() (lo, hi results.Result, err error) {
	rs, err := predict.KeptAny(KeepBatch)
	if err != nil {
		return lo, hi, err
	}
	return predict.Ends(rs, "batch")
}

// MineLargest is lesson 06's recall card from the learner's own memory sweep.
var MineLargest = predict.Mine("06/mine-largest", largestMB,
	func(mb float64) string {
		_, hi, _ := sweepEnds()
		return fmt.Sprintf("Your step at batch %d added %s MB. Roughly how much would batch %d add, if the fixed part (weights, gradients, optimizer state) stayed and the activations doubled?", hi.Params["batch"], predict.Num(mb), 2*hi.Params["batch"])
	},
	func(mb float64) string {
		lo, hi, _ := sweepEnds()
		perSample := (metric(hi, ParamMeasured) - metric(lo, ParamMeasured)) / float64(max(1, hi.Params["batch"]-lo.Params["batch"]))
		return fmt.Sprintf("From your two ends (the smallest and the largest batch, so not the slope above, between the two largest): about %s MB per extra sample, so about %s MB at batch %d (measured growth is noisy on a CPU: the process's peak RSS also holds the runtime).", predict.Num(perSample/1e6), predict.Num(mb+perSample*float64(hi.Params["batch"])/1e6), 2*hi.Params["batch"])
	})

// PredictStateH100 asks how many 80 GB H100s a 7B model's training state fills under mixed-precision
// Adam, activations aside: a model (the recipe's bytes per parameter against the datasheet's 80 GB).
var PredictStateH100 = predict.Question{
	Key:   "06/gpu-state-7b",
	Model: "datasheet",
	Text:  "GPU (answered by the H100 datasheet, a model): a 7B-parameter model trained with Adam in mixed precision. Its weights, gradients and optimizer state alone, before any activation, fill how many 80 GB H100s? (a factor)",
	Unit:  "H100s",
	Answer: func() (float64, error) {
		return 7e9 * float64(mixedAdam.Total()) / H100Bytes, nil
	},
	Why: "Model, not measured: 16 bytes per parameter (2 + 2 for the 16-bit weights and gradients, 4 for the float32 master copy, 4 + 4 for Adam's moments) × 7e9 = 112 GB, 1.4 H100s: no single H100 trains it without sharding (lesson 10) or offload.",
}

// H100Bytes is an H100 SXM's memory as its datasheet says it: 80 GB (10⁹ bytes each).
const H100Bytes = 80e9
