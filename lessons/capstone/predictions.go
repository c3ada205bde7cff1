package capstone

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of the capstone.
var (
	// PredictDays: the planned run on this machine.
	PredictDays = predict.Question{
		Key:  "11/run-days-here",
		Text: "The 125 M-parameter, 10 B-token run at the rate this machine sustains on a training step: how many days? (days)",
		Unit: "days",
		Answer: func() (float64, error) {
			rs, err := predict.KeptAny(KeepStep)
			if err != nil {
				return 0, err
			}
			return Planned.FLOPs() / rs[0].FLOPS() / 86400, nil
		},
		Why: "7.5·10¹⁸ FLOPs over the FLOP/s a whole step sustains here; the GPU row of the table does the same with the model's band.",
	}
	// PredictBest: the best throughput of the tuning sweep.
	PredictBest = predict.Question{
		Key:  "11/best-samples-per-s",
		Text: "The best configuration of the tuning grid: how many samples per second will it train here? (samples/s)",
		Unit: "samples/s",
		Answer: func() (float64, error) {
			ps, err := RecallTune()
			if err != nil {
				return 0, err
			}
			b, err := Best(ps)
			return b.SamplesPerSec, err
		},
		Why: "Throughput is set by the slowest of the loader (work per sample ÷ workers) and the step (fixed cost + work per sample): the best point balances them.",
	}
)

// MineBest is the capstone's recall card from the learner's own tuned throughput.
var MineBest = predict.Mine("11/mine-best", PredictBest,
	func(s float64) string {
		return fmt.Sprintf("Your best configuration trained %s samples/s. How long would one epoch of 1.28 million samples (ImageNet's size) take at that rate?", predict.Num(s))
	},
	func(s float64) string {
		return fmt.Sprintf("1.28·10⁶ / %s ≈ %s s (%s h).", predict.Num(s), predict.Num(1.28e6/s), predict.Num(1.28e6/s/3600))
	})
