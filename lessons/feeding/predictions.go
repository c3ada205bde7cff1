package feeding

import (
	"fmt"
	"math"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of lesson 07.
var (
	// PredictOneWorker: how well one loader worker feeds the device (step alone ÷ time per step).
	PredictOneWorker = predict.Question{
		Key:  "07/one-worker-fed",
		Text: "Each batch needs twice the step's time of CPU work. With a single loader worker, what share of the device's own pace do you get: the step alone ÷ the time per step? (%)",
		Unit: "%",
		Answer: func() (float64, error) {
			rs, err := predict.KeptAny(KeepWorkers)
			if err != nil {
				return 0, err
			}
			r, err := predict.Where(rs, ParamWorkers, 1)
			if err != nil {
				return 0, err
			}
			return 100 * FedShare(r), nil
		},
		Why: "One worker delivers a batch every two step-times at best, so the device is fed at most half the time; here the loader also takes cores from the step, which can push it lower.",
	}
	// PredictFused: one fused graph against many small calls.
	PredictFused = predict.Question{
		Key:  "07/fused-speedup",
		Text: "The same forward pass as one fused graph instead of one executable call per op: how many times faster on xla:cpu? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(KeepLaunch, devices.CPU)
			if err != nil {
				return 0, err
			}
			fused, separate, err := predict.Ends(rs, ParamCalls)
			if err != nil {
				return 0, err
			}
			return separate.Seconds() / fused.Seconds(), nil
		},
		Why: "Every call pays a fixed launch and dispatch cost; with small ops that cost, not the arithmetic, is the time.",
	}
)

// MineWorkers is lesson 07's recall card from the learner's own loader measurement: the fed share
// (step alone ÷ time per step), not the contended "step running" share.
var MineWorkers = predict.Mine("07/mine-workers", PredictOneWorker,
	func(p float64) string {
		return fmt.Sprintf("With one loader worker your step alone took %s%% of the time per step. Does that mean about 100 ÷ %s ≈ %s workers would feed the device if the cores allowed? What would you measure instead?",
			predict.Num(p), predict.Num(p), predict.Num(math.Ceil(100/p)))
	},
	func(p float64) string {
		return fmt.Sprintf("No: the %s%% was measured with the loader and the step sharing this machine's cores, so both ran slower than alone. "+
			"Measure each alone: workers = ⌈one batch's loading time ÷ the step's time⌉ (the sweep table's model column; the source's 400 ms ÷ 300 ms gives 2). "+
			"With spare cores that many feed the device; without them, as here, no count does — more workers slow each step (oversubscription).", predict.Num(p))
	})

// PredictEightWorkers asks what eight loader workers instead of one buy the source's GPU node: a
// 300 ms step fed batches that need 400 ms of CPU work each (the loader model Fed, cores to spare).
var PredictEightWorkers = predict.Question{
	Key:   "07/gpu-eight-workers",
	Model: "loader model",
	Text:  "GPU (answered by the loader model, a model): the source's GPU needs 300 ms per step and each batch needs 400 ms of CPU work. With 8 loader workers instead of 1 (cores to spare), how many times more steps per second? (a factor)",
	Unit:  "×",
	Answer: func() (float64, error) {
		one, _ := Fed(300*time.Millisecond, 400*time.Millisecond, 1)
		eight, _ := Fed(300*time.Millisecond, 400*time.Millisecond, 8)
		return float64(one) / float64(eight), nil
	},
	Why: "Model, not measured: one worker delivers a batch every 400 ms; from two workers on, batches arrive faster than the 300 ms step, so the GPU sets the pace: 400 ÷ 300 ≈ 1.33×, and the other six workers buy nothing.",
}
