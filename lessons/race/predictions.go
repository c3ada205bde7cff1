package race

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of lesson 01: the learner guesses, the cells below measure, Reveal compares.
var (
	// PredictSplit: the same FLOPs as many small matmuls vs a few large ones.
	PredictSplit = predict.Question{
		Key:  "01/split-slowdown",
		Text: "The same FLOP budget, done as many tiny (8×8) matmuls instead of a few large ones: how many times longer will it take on xla:cpu than the fastest split? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(SmallVsLargeKeep, devices.CPU)
			if err != nil {
				return 0, err
			}
			small, _, err := predict.Ends(rs, "side")
			if err != nil {
				return 0, err
			}
			fastest := small.Seconds() // the table's "relative" column: each split over the fastest
			for _, r := range rs {
				fastest = min(fastest, r.Seconds())
			}
			return small.Seconds() / fastest, nil
		},
		Why: "Every call pays a fixed cost (dispatch, launch) whatever its size; tiny matmuls are nearly all fixed cost.",
	}
)

// MineHook is lesson 01's recall card from the learner's own opening measurement.
var MineHook = predict.Mine("01/mine-hook", PredictHookFLOPs,
	func(r float64) string {
		return fmt.Sprintf("Your graph heavy in bytes took %s× its time with twice the FLOPs. Was it overhead-bound? How do you know?", predict.Num(r))
	},
	func(r float64) string {
		return "No: a flat time when the FLOPs double says only that the FLOPs do not set it. Doubling its bytes moved the time, and the time budget agrees: T_memory = bytes ÷ bandwidth explains most of it — memory-bandwidth-bound. Overhead-bound is when neither budget explains the time."
	})
