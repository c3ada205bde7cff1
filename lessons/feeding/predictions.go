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
	// PredictOneWorker: how busy one loader worker keeps the device.
	PredictOneWorker = predict.Question{
		Key:  "07/one-worker-busy",
		Text: "Training from the loader with a single worker: what percentage of the wall time will the device spend computing? (%)",
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
			return metric(r, ParamUtilPM) / 10, nil
		},
		Why: "When preparing a batch takes longer than the step, the device waits for the loader every step: its busy share is step time over batch-preparation time.",
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

// MineWorkers is lesson 07's recall card from the learner's own loader measurement.
var MineWorkers = predict.Mine("07/mine-workers", PredictOneWorker,
	func(p float64) string {
		return fmt.Sprintf("With one loader worker your device was busy %s%% of the wall time. About how many workers would keep it busy, if the cores allowed?", predict.Num(p))
	},
	func(p float64) string {
		return fmt.Sprintf("One worker feeds %s%% of what the device can eat, so about 100 / %s ≈ %s workers — but only while there are free cores; beyond them workers slow each other (oversubscription).", predict.Num(p), predict.Num(p), predict.Num(math.Ceil(100/p)))
	})

// PredictEightWorkers asks what eight loader workers instead of one buy the source's GPU node: a
// 300 ms step fed batches that need 400 ms of CPU work each (the loader model Fed, cores to spare).
var PredictEightWorkers = predict.Question{
	Key:  "07/gpu-eight-workers",
	Text: "GPU (answered by the loader model, a model): the source's GPU needs 300 ms per step and each batch needs 400 ms of CPU work. With 8 loader workers instead of 1 (cores to spare), how many times more steps per second? (a factor)",
	Unit: "×",
	Answer: func() (float64, error) {
		one, _ := Fed(300*time.Millisecond, 400*time.Millisecond, 1)
		eight, _ := Fed(300*time.Millisecond, 400*time.Millisecond, 8)
		return float64(one) / float64(eight), nil
	},
	Why: "Model, not measured: one worker delivers a batch every 400 ms; from two workers on, batches arrive faster than the 300 ms step, so the GPU sets the pace: 400 ÷ 300 ≈ 1.33×, and the other six workers buy nothing.",
}
