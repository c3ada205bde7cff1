package race

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// ExerciseStepFLOPs is lesson 01's formula for the learner: the FLOPs of one training step of one
// dense layer, checked against workloads.MLP's count (3 × the forward pass's 2·B·D·H).
var ExerciseStepFLOPs = exercise.Exercise{
	Key:       "01/step-flops",
	Task:      "the FLOPs of one training step (forward and backward) of one dense layer: a batch of B samples, D inputs, H outputs.",
	Signature: "StepFLOPs(batch, in, out float64) float64",
	Unit:      "FLOP",
	Cases: []exercise.Case{
		{Name: "B=1, D=H=64", Args: []float64{1, 64, 64}},
		{Name: "B=256, D=784, H=512", Args: []float64{256, 784, 512}},
		{Name: "B=4096, D=H=4096", Args: []float64{4096, 4096, 4096}},
	},
	Course: func(x []float64) float64 {
		return workloads.MLP{Batch: int(x[0]), In: int(x[1]), Out: int(x[2])}.FLOPs()
	},
	Hint:     "the forward matmul (B×D by D×H) does one multiply and one add for every sample, input and output: 2·B·D·H. The backward pass does about twice that (gradients for the inputs and for the weights).",
	Answer:   "return 6 * batch * in * out // 2·B·D·H forward + 4·B·D·H backward",
	Why:      "6 FLOPs per sample per weight: the step's arithmetic grows with the batch, while its fixed costs (launching the step's kernels) do not — why a GPU needs a large batch before it wins.",
	Measured: stepFLOPsMeasured,
}

// stepFLOPsMeasured sets the learner's formula against their doubling test: the inputs are one
// hidden layer of the training step they timed, and the note says what rate the step's FLOPs (the
// course's count) reached in the time they measured, next to this CPU's measured matmul ceiling.
func stepFLOPsMeasured() (exercise.Measurement, error) {
	v, err := stepVerdict()
	if err != nil {
		return exercise.Measurement{}, err
	}
	b, h := v.Base.Params["batch"], v.Base.Params["hidden"]
	rate := v.Base.FLOPs / v.T1
	note := fmt.Sprintf("The whole step (every layer, %s by the course's count) ran in %s: %s", units.SI(v.Base.FLOPs, "FLOP"), units.Duration(v.T1), units.SI(rate, "FLOP/s"))
	if v.Base.CeilingFLOPS > 0 {
		note += fmt.Sprintf(", %.2g%% of the %s your matmul ceiling measured", 100*rate/v.Base.CeilingFLOPS, units.SI(v.Base.CeilingFLOPS, "FLOP/s"))
	}
	return exercise.Measurement{
		Case: exercise.Case{Name: fmt.Sprintf("one %d→%d layer at batch %d", h, h, b), Args: []float64{float64(b), float64(h), float64(h)}},
		What: "the training step of your doubling test on " + devices.CPU,
		Note: note + ". What keeps it below the ceiling is the step's fixed costs and small products, not its arithmetic.",
	}, nil
}
