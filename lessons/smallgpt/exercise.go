package smallgpt

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// GPT2Small is the problem's model: GPT-2 small's shape (12 layers of width 768, 12 heads, a
// 50,257-token vocabulary, 1,024-token context), 64 sequences per step.
var GPT2Small = gpt.GPT{Vocab: 50257, Context: 1024, Batch: 64, Embed: 768, Layers: 12, Heads: 12}

// problemMFU is the utilization the problem assumes: the source's 40% for a well-tuned run.
const problemMFU = 0.4

// ProblemStep is lesson 09's applied problem: the step time of a GPT-2-small-shaped model on an
// H100 at 40% MFU, counting attention's term beside 6·N·T.
var ProblemStep = exercise.Register(exercise.Problem{
	Key: "09/gpt2-step-h100",
	Question: fmt.Sprintf("A GPT with GPT-2 small's shape — %d layers of width %d, %.0f M parameters in its matrix products (the output layer included), %d-token context — trains on batches of %d sequences on one %s "+
		"(%.0f TFLOP/s dense bf16, datasheet) at %.0f%% MFU. Counting attention's scores and weighted sums too, how many milliseconds does one training step take?",
		GPT2Small.Layers, GPT2Small.Embed, float64(GPT2Small.MatmulParams())/1e6, GPT2Small.Context, GPT2Small.Batch, datasheet.H100.Short,
		datasheet.H100.Ceilings.Peak("bfloat16")/1e12, 100*problemMFU),
	Unit: "ms",
	Hint: "Count the tokens in a step first; then the parameter products' FLOPs and attention's, from this lesson's counts; then divide by the rate the step sustains (not the peak).",
	Solve: func() (exercise.Solution, error) {
		c := GPT2Small
		rate := problemMFU * datasheet.H100.Ceilings.Peak("bfloat16")
		t := c.FLOPs() / rate
		return exercise.Solution{Value: 1e3 * t, Steps: []string{
			fmt.Sprintf("tokens per step: %d × %d = %d", c.Batch, c.Context, c.Tokens()),
			fmt.Sprintf("parameter products: 6 × %.1f M × %d = %.3g FLOPs", float64(c.MatmulParams())/1e6, c.Tokens(), c.SixNT()),
			fmt.Sprintf("attention: 12 × %d layers × %d × %d × %d tokens = %.3g FLOPs (%.0f%% of the step)", c.Layers, c.Context, c.Embed, c.Tokens(), c.AttentionFLOPs(), 100*c.AttentionShare()),
			fmt.Sprintf("rate: %.0f%% × %.0f TFLOP/s = %.0f TFLOP/s", 100*problemMFU, datasheet.H100.Ceilings.Peak("bfloat16")/1e12, rate/1e12),
			fmt.Sprintf("step: %.3g FLOPs ÷ %.0f TFLOP/s ≈ %.0f ms (6·N·T alone would say %.0f ms)", c.FLOPs(), rate/1e12, 1e3*t, 1e3*c.SixNT()/rate),
		}}, nil
	},
})
