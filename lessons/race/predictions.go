package race

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of lesson 01: the learner guesses, the cells below measure, Reveal compares.
var (
	// PredictSplit: the same FLOPs as many small matmuls vs a few large ones.
	PredictSplit = predict.Question{
		Key:  "01/split-slowdown",
		Text: "The same FLOP budget, done as many tiny matmuls instead of a few large ones: how many times longer will it take on xla:cpu? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(SmallVsLargeKeep, devices.CPU)
			if err != nil {
				return 0, err
			}
			small, large, err := predict.Ends(rs, "side")
			if err != nil {
				return 0, err
			}
			return small.Seconds() / large.Seconds(), nil
		},
		Why: "Every call pays a fixed cost (dispatch, launch) whatever its size; tiny matmuls are nearly all fixed cost.",
	}
	// PredictStepDoubling: the doubling test on the race's batch-1 training step.
	PredictStepDoubling = predict.Question{
		Key:    "01/step-double-time",
		Text:   "The race's training step at batch 1, run again at batch 2 (twice the work): how many times its batch-1 time will it take on xla:cpu? (a factor)",
		Unit:   "×",
		Answer: stepRatio,
		Why:    "A batch-1 step is mostly fixed cost (calls, dispatch) and reading the weights, both the same at batch 2; its arithmetic is small. The ratio alone does not name the regime: the time budget does.",
	}
)

// stepRatio is the live xla:cpu doubling test's ratio for the training step: its time at twice the
// batch over its time at the cell's batch (fastest runs, as the doubling table shows them).
func stepRatio() (float64, error) {
	v, err := stepVerdict()
	if err != nil {
		return 0, err
	}
	return v.T2 / v.T1, nil
}

// stepVerdict is the training step's pair of the live xla:cpu doubling test.
func stepVerdict() (regime.Pair, error) {
	rs, err := predict.Kept(KeepDouble, devices.CPU)
	if err != nil {
		return regime.Pair{}, err
	}
	for _, v := range regime.Pairs(rs) {
		if v.Base.Params[regime.ParamPair] == 0 && v.T1 > 0 { // Doubling.Pairs puts the step first
			return v, nil
		}
	}
	return regime.Pair{}, fmt.Errorf("%s: the doubling test kept no training step on %s: run the doubling cell first", Lesson, devices.CPU)
}

// MineStepDoubling is lesson 01's recall card from the learner's own doubling test.
var MineStepDoubling = predict.Mine("01/mine-step-doubling", PredictStepDoubling,
	func(r float64) string {
		return fmt.Sprintf("Your batch-1 training step took %s× its time at twice the batch on xla:cpu. Which regime is it in, and why?", predict.Num(r))
	},
	func(r float64) string {
		p, err := stepVerdict()
		if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("The time budget decides, not the ratio: %s. Twice the work in %s× the time says how the time responds; which budget explains it says why.", p.Verdict, predict.Num(r))
	})
