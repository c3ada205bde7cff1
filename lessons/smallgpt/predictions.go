package smallgpt

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of lesson 09.
var (
	// PredictTokens: training throughput of the small GPT here.
	PredictTokens = predict.Question{
		Key:  "09/tokens-per-s",
		Text: "How many tokens per second will the small GPT train at on this machine? (tokens/s)",
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
var MineTokens = predict.Mine("09/mine-tokens", PredictTokens,
	func(t float64) string {
		return fmt.Sprintf("Your small GPT trained at %s tokens/s. How long would one pass over 10 million characters (one token each) take here?", predict.Num(t))
	},
	func(t float64) string {
		return fmt.Sprintf("10⁷ / %s ≈ %s s (%s min).", predict.Num(t), predict.Num(1e7/t), predict.Num(1e7/t/60))
	})
