package smallgpt

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// GEMMShare is the share (%) of c's modeled H200 step time that its matrix products take, at the
// midpoint of the GPU model's band.
func GEMMShare(c gpt.GPT) (float64, error) {
	if err := c.Validate(); err != nil {
		return 0, err
	}
	for _, k := range gpumodel.GPTStepEstimate(c).ByClass() {
		if k.Class == gpumodel.ClassGEMM {
			return 50 * (k.Share[0] + k.Share[1]), nil
		}
	}
	return 0, fmt.Errorf("%s: the modeled step has no matrix-product kernels", Lesson)
}

// Predictions of lesson 09.
var (
	// PredictLossFall: how far the loss falls over the run.
	PredictLossFall = predict.Question{
		Key:  "09/loss-fall",
		Text: "Over the run, the loss falls from its first step to its last: by how many times? (first ÷ last, a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			run, err := RecallRun()
			if err != nil {
				return 0, err
			}
			if len(run.Losses) < 2 || run.Losses[len(run.Losses)-1] <= 0 {
				return 0, fmt.Errorf("%s: the kept run has too few steps: run the training cell again", Lesson)
			}
			return run.Losses[0] / run.Losses[len(run.Losses)-1], nil
		},
		Why: "It starts at or above ln V (random weights, every character equally likely or worse) and falls as the model learns which characters are common, then which follow which: a few hundred steps already divide it by a few.",
	}
	// PredictGEMMShare: the GPU model's share of the step's time in matrix products at GPU scale.
	PredictGEMMShare = predict.Question{
		Key:    "09/h200-gemm-share",
		Text:   "GPU (answered by the GPU model, a model): this GPT at GPU scale (4 layers, width 256, 256 characters, batch 64) on an H200 — what share of the modeled step time do its matrix products take? (%)",
		Unit:   "%",
		Answer: func() (float64, error) { return GEMMShare(Config(experiments.GPU)) },
		Why:    "Model (pkg/model/gpumodel): at width 256 the products only reach the ridge, and the many memory-bound kernels (softmax over the s×s scores, layer norms, GELU, Adam's update) keep most of the step; launches are a sliver of it.",
		Model:  "GPU model",
	}
	// tokensPerSec: training throughput of the small GPT here (for MineTokens).
	tokensPerSec = predict.Question{
		Key:  "09/tokens-per-s",
		Text: "How many tokens per second did the small GPT train at on this machine? (tokens/s)",
		Unit: "tokens/s",
		Answer: func() (float64, error) {
			run, err := RecallRun()
			if err != nil {
				return 0, err
			}
			return run.TokensPerSec(), nil
		},
		Why: "Tokens/s is the step's FLOP/s over the FLOPs per token (about 6 per parameter, plus attention): the MFU section below splits it.",
	}
	// PredictContext: the cost of a longer context, per token.
	PredictContext = predict.Question{
		Key:  "09/context-cost-per-token",
		Text: "From the shortest to the longest context of the sweep: how many times more time per token? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.KeptAny(KeepSweep)
			if err != nil {
				return 0, err
			}
			lo, hi, err := predict.Ends(rs, "context")
			if err != nil {
				return 0, err
			}
			perToken := func(s float64, batch, context int) float64 { return s / float64(max(1, batch*context)) }
			return perToken(hi.Seconds(), hi.Params["batch"], hi.Params["context"]) / perToken(lo.Seconds(), lo.Params["batch"], lo.Params["context"]), nil
		},
		Why: "The matrix products cost the same per token at any context; attention's score matrix grows with the context, so its share, and the time per token, grow with it.",
	}
)

// MineTokens is lesson 09's recall card from the learner's own throughput.
var MineTokens = predict.Mine("09/mine-tokens", tokensPerSec,
	func(t float64) string {
		return fmt.Sprintf("Your small GPT trained at %s tokens/s. How long would one pass over 10 million characters (one token each) take here?", predict.Num(t))
	},
	func(t float64) string {
		return fmt.Sprintf("10⁷ / %s ≈ %s s (%s min).", predict.Num(t), predict.Num(1e7/t), predict.Num(1e7/t/60))
	})
