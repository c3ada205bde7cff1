package memory

import (
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// mixedAdam is the mixed-precision Adam recipe of Recipes: the source text's 16 bytes per parameter.
var mixedAdam = func() PerParam {
	for _, r := range Recipes {
		if r.Recipe == "mixed precision (bf16/f16), Adam" {
			return r
		}
	}
	panic("memory: no mixed-precision Adam recipe")
}()

// ExerciseState is lesson 06's formula for the learner: the model state of mixed-precision Adam
// training, checked against the Recipes' bytes per parameter and set against XLA's plan of the
// lesson's own step (measuredState).
var ExerciseState = exercise.Exercise{
	Key:       "06/state-bytes",
	Task:      "the bytes of the training state of a model of N parameters, trained with Adam in mixed precision (activations aside): 16-bit weights and gradients, float32 master weights and two float32 moments.",
	Signature: "StateBytes(params float64) float64",
	Unit:      "bytes",
	Cases: []exercise.Case{
		{Name: "350 M parameters (the source text's model)", Args: []float64{350e6}},
		{Name: "125 M parameters", Args: []float64{125e6}},
		{Name: "7 B parameters", Args: []float64{7e9}},
	},
	Course:   func(x []float64) float64 { return x[0] * float64(mixedAdam.Total()) },
	Hint:     "add the bytes per parameter: 2 (16-bit weights) + 2 (16-bit gradients) + 4 (float32 master weights) + 4 + 4 (Adam's two moments).",
	Answer:   "return 16 * params // 2 + 2 + 4 + 4 + 4 bytes per parameter",
	Measured: measuredState,
	Why:      "A 7 B model needs 112 GB before one activation: more than an 80 GB H100 holds, the reason state is sharded across devices (lesson 10).",
}
