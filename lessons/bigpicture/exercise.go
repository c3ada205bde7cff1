package bigpicture

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// ProblemDecode is lesson 08's applied problem: a 7B model's time per generated token on an H200,
// from the datasheet (worked in two budgets; the longer sets the time).
var ProblemDecode = exercise.Register(exercise.Problem{
	Key: "08/decode-7b-h200",
	Question: fmt.Sprintf("A %.0f-billion-parameter language model stored in bfloat16 (2 bytes per weight) writes text one token at a time for one user on an %s "+
		"(datasheet: %.1f TB/s of memory bandwidth, %.0f TFLOP/s dense bf16). Each new token passes through the whole model once. "+
		"At best, how many milliseconds does one token take?",
		Decode7B.Params/1e9, datasheet.H200.Short, datasheet.H200.Ceilings.BandwidthBytes/1e12, datasheet.H200.Ceilings.Peak("bfloat16")/1e12),
	Unit:    "ms",
	Formula: "bytes ÷ bandwidth",
	Hint:    "Count two things for one token — the bytes that must come from memory, and the multiply-adds — turn each into a time on this chip, and keep the longer.",
	Solve: func() (exercise.Solution, error) {
		g := datasheet.H200
		tc, tm := Decode7B.Budgets(g)
		return exercise.Solution{Value: 1e3 * max(tc, tm), Steps: []string{
			fmt.Sprintf("bytes per token: every weight is read once, %.0f × 10⁹ × %.0f B = %.0f GB", Decode7B.Params/1e9, Decode7B.BytesPerParam, Decode7B.Bytes()/1e9),
			fmt.Sprintf("memory time: %.0f GB ÷ %.1f TB/s = %.2f ms", Decode7B.Bytes()/1e9, g.Ceilings.BandwidthBytes/1e12, 1e3*tm),
			fmt.Sprintf("math: one multiply-add (2 FLOPs) per weight = %.2g FLOPs ÷ %.0f TFLOP/s = %.3f ms, %.0f× shorter", Decode7B.FLOPs(), g.Ceilings.Peak("bfloat16")/1e12, 1e3*tc, tm/tc),
			fmt.Sprintf("the longer budget sets the time: ≈ %.1f ms per token (≈ %.0f tokens/s) — memory-bandwidth-bound; serving 64 users in one batch reads the same weights once for all of them", 1e3*tm, 1/tm),
		}}, nil
	},
})
