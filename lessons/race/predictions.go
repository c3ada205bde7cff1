package race

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/predict"
	"github.com/gpu-course/whygpu/pkg/regime"
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
		Why:    "A batch-1 step is mostly fixed cost (calls, launches, reading the weights); twice its arithmetic adds little. Under about 1.3× the time is overhead-bound; near 2× the work sets it.",
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
func stepVerdict() (regime.Verdict, error) {
	rs, err := predict.Kept(KeepDouble, devices.CPU)
	if err != nil {
		return regime.Verdict{}, err
	}
	for _, v := range regime.Verdicts(rs) {
		if v.Base.Params[regime.ParamPair] == 0 && v.T1 > 0 { // Doubling.Pairs puts the step first
			return v, nil
		}
	}
	return regime.Verdict{}, fmt.Errorf("%s: the doubling test kept no training step on %s: run the doubling cell first", Lesson, devices.CPU)
}

// MineStepDoubling is lesson 01's recall card from the learner's own doubling test.
var MineStepDoubling = predict.Mine("01/mine-step-doubling", PredictStepDoubling,
	func(r float64) string {
		return fmt.Sprintf("Your batch-1 training step took %s× its time at twice the batch on xla:cpu. Which regime is it in, and why?", predict.Num(r))
	},
	func(r float64) string {
		if r < regime.OverheadGrowth {
			return fmt.Sprintf("Overhead-bound: twice the work in %s× the time (under %g×) means fixed costs — calls, dispatch, reading the weights — set the step's time, not its arithmetic.", predict.Num(r), regime.OverheadGrowth)
		}
		return fmt.Sprintf("Not overhead-bound on this run: %s× is at least %g×, so the work itself sets the time; on a busy machine re-run the cell (the spread says how noisy it was).", predict.Num(r), regime.OverheadGrowth)
	})
