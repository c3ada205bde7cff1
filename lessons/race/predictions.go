package race

import (
	"fmt"
	"sort"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/predict"
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
	// PredictDoubling: where the CPU's step time starts to grow with the batch.
	PredictDoubling = predict.Question{
		Key:    "01/cpu-double-batch",
		Text:   "At what batch size will one training step on xla:cpu take twice as long as at batch 1? (a batch size)",
		Unit:   "batch",
		Answer: func() (float64, error) { return doublingBatch(StepSweepKeep) },
		Why:    "Below that batch the step is mostly fixed cost; above it the CPU's few lanes are busy and time grows with the work.",
	}
)

// doublingBatch is the smallest batch whose live xla:cpu step takes at least twice the batch-1 step.
func doublingBatch(keep string) (float64, error) {
	rs, err := predict.Kept(keep, devices.CPU)
	if err != nil {
		return 0, err
	}
	return DoublingBatch(rs)
}

// DoublingBatch is the smallest batch whose step takes at least twice the step at the smallest
// batch, among results of one device; an error when the sweep never got there.
func DoublingBatch(rs []measure.Result) (float64, error) {
	rs = append([]measure.Result(nil), rs...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Params["batch"] < rs[j].Params["batch"] })
	if len(rs) < 2 {
		return 0, fmt.Errorf("%s: need a batch sweep of at least two sizes", Lesson)
	}
	base := rs[0].Seconds()
	for _, r := range rs[1:] {
		if r.Seconds() >= 2*base {
			return float64(r.Params["batch"]), nil
		}
	}
	return 0, fmt.Errorf("%s: the step never took twice its batch-%d time up to batch %d: the answer is above the sweep (WHYGPU_SCALE=gpu sweeps further)",
		Lesson, rs[0].Params["batch"], rs[len(rs)-1].Params["batch"])
}

// MineDoubling is lesson 01's recall card from the learner's own doubling batch.
var MineDoubling = predict.Mine("01/mine-doubling", PredictDoubling,
	func(b float64) string {
		return fmt.Sprintf("Your xla:cpu step took twice its batch-1 time at batch %s. How many times more samples per second does batch %s train than batch 1?", predict.Num(b), predict.Num(b))
	},
	func(b float64) string {
		return fmt.Sprintf("%s samples in twice the time: about %s× the samples per second. Below that batch the extra samples were nearly free; above it each one costs CPU time.", predict.Num(b), predict.Num(b/2))
	})
