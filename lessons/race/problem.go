package race

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// The layer of ProblemStepTime: GPT-2 small's MLP widening (768 → 3072) over 1024 tokens, a shape
// the FLOP table does not print, so its arithmetic is the learner's.
const (
	problemBatch = 1024
	problemIn    = 768
	problemOut   = 3072
)

// ProblemStepTime: the shortest time one training step of a wide layer can take on this CPU, from
// the FLOP count and the learner's own measured ceiling.
var ProblemStepTime = exercise.Problem{
	Key: "01/step-time-at-ceiling",
	Question: fmt.Sprintf("One training step (forward and backward) of a dense %d→%d float32 layer (GPT-2 small's MLP widening) at batch %d, on this CPU: "+
		"what is the shortest time its arithmetic allows, at the matmul ceiling your first cell measured (printed under its table)? In seconds.",
		problemIn, problemOut, problemBatch),
	Unit:    "s",
	Hint:    "Count the forward pass first: how many outputs, and how many multiply-adds each? Then the backward pass's two products of the same size. Divide by the ceiling.",
	Formula: "6·B·D·H",
	Solve: func() (exercise.Solution, error) {
		rs, err := predict.Kept(KeepHook, devices.CPU)
		if err != nil {
			return exercise.Solution{}, err
		}
		ceiling := rs[0].CeilingFLOPS
		if ceiling <= 0 {
			return exercise.Solution{}, fmt.Errorf("%s: no measured ceiling kept: run the first measuring cell again", Lesson)
		}
		b, d, h := float64(problemBatch), float64(problemIn), float64(problemOut)
		fwd := 2 * b * d * h
		step := 3 * fwd
		return exercise.Solution{Value: step / ceiling, Steps: []string{
			fmt.Sprintf("forward: %d × %d outputs, each a dot product of length %d (a multiply and an add per term): 2 × %d × %d × %d = %s",
				problemBatch, problemOut, problemIn, problemBatch, problemIn, problemOut, units.SI(fwd, "FLOP")),
			fmt.Sprintf("backward: two products of the same size (gradients for the weights and for the input) = %s; the step: 3 × forward = %s",
				units.SI(2*fwd, "FLOP"), units.SI(step, "FLOP")),
			fmt.Sprintf("at your measured ceiling of %s: %s ÷ %s = %s — a floor; fixed costs and smaller kernels only add to it",
				units.SI(ceiling, "FLOP/s"), units.SI(step, "FLOP"), units.SI(ceiling, "FLOP/s"), units.Duration(step/ceiling)),
		}}, nil
	},
}
