package capstone

import (
	"fmt"
	"math"

	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of the capstone.
var (
	// PredictHere: the planned run here against one H200 (the GPU model's band).
	PredictHere = predict.Question{
		Key:   "11/here-vs-h200",
		Model: "measured ÷ GPU model",
		Text:  "The 125 M-parameter, 10 B-token run: how many times longer at the rate this machine sustains on a training step than on one H200 (GPU model)? (answered by your measurement over the GPU model: ×)",
		Unit:  "×",
		Answer: func() (float64, error) {
			rs, err := predict.KeptAny(KeepStep)
			if err != nil {
				return 0, err
			}
			lo, hi := gpumodel.Default().RunTime(Planned.FLOPs(), "bfloat16")
			return Planned.FLOPs() / rs[0].FLOPS() / math.Sqrt(lo.Seconds()*hi.Seconds()), nil // the band's geometric middle, as gpumodel.Estimate.Mid
		},
		Why: "Measured here against a model (the H200's band, not a measurement; its geometric middle): the same FLOPs at two sustained rates, so the ratio is the rates' ratio — the lanes each chip keeps busy.",
	}
	// PredictBest: how much tuning gains here.
	PredictBest = predict.Question{
		Key:  "11/best-vs-worst",
		Text: "The tuning grid: how many times the samples per second of its worst configuration will its best train here? (×)",
		Unit: "×",
		Answer: func() (float64, error) {
			b, w, err := tuneEnds()
			if err != nil {
				return 0, err
			}
			return b.SamplesPerSec / w.SamplesPerSec, nil
		},
		Why: "Throughput is set by the slower of the loader (work per sample ÷ workers) and the step (fixed cost + work per sample): a small batch with one worker pays both, the best point balances them.",
	}
	// PredictEnergy: energy per FLOP of the source's socket over the H200's (models).
	PredictEnergy = predict.Question{
		Key:  "11/energy-socket-vs-h200",
		Text: "GPU (answered by the GPU model and the TDPs, a model): energy per training FLOP of the source's 64-core socket over an H200's, each at its TDP and the rate a whole step sustains — how many times? (×)",
		Unit: "×",
		// Answered from the datasheets and the model: no measurement enters it.
		Answer: func() (float64, error) { return EnergyRatio(Planned) },
		Model:  "GPU model and TDPs",
		Why:    "Model (TDPs and sustained rates): the H200 draws a few times the socket's power but sustains tens of times its rate, so each FLOP costs it one to two orders of magnitude less energy.",
	}
)

// MineBest is the capstone's recall card from the learner's own tuned throughput.
var MineBest = predict.Mine("11/mine-best", bestSamples,
	func(s float64) string {
		return fmt.Sprintf("Your best configuration trained %s samples/s. How long would one epoch of 1.28 million samples (ImageNet's size) take at that rate?", predict.Num(s))
	},
	func(s float64) string {
		return fmt.Sprintf("1.28·10⁶ / %s ≈ %s s (%s h).", predict.Num(s), predict.Num(1.28e6/s), predict.Num(1.28e6/s/3600))
	})

// bestSamples is the best throughput of the tuning sweep (for MineBest).
var bestSamples = predict.Question{
	Key:  "11/best-samples-per-s",
	Text: "The best configuration of the tuning grid: samples per second here (samples/s)",
	Unit: "samples/s",
	Answer: func() (float64, error) {
		b, _, err := tuneEnds()
		return b.SamplesPerSec, err
	},
}

// tuneEnds is the kept tuning sweep's best and worst configurations.
func tuneEnds() (best, worst Point, err error) {
	ps, err := RecallTune()
	if err != nil {
		return best, worst, err
	}
	if best, err = Best(ps); err != nil {
		return best, worst, err
	}
	worst = best
	for _, p := range ps {
		if p.SamplesPerSec > 0 && p.SamplesPerSec < worst.SamplesPerSec {
			worst = p
		}
	}
	return best, worst, nil
}
