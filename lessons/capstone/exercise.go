package capstone

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// ExerciseRunDays is the capstone's formula for the learner: a whole run's time in days from 6·N·T,
// checked against Run.FLOPs and applied to the step rate the learner measured here.
var ExerciseRunDays = exercise.Exercise{
	Key:       "11/run-days",
	Task:      "the days a training run of N parameters over T tokens takes at a sustained rate of flopsPerSec.",
	Signature: "RunDays(params, tokens, flopsPerSec float64) float64",
	Unit:      "days",
	Cases: []exercise.Case{
		{Name: "the planned run (125 M, 10 B tokens) on 8 H200s at 40% of bf16 peak (model)", Args: []float64{Planned.Params, Planned.Tokens, 8 * 0.4 * datasheet.H200.Peak("bfloat16")}},
		{Name: "the planned run at 1 TFLOP/s", Args: []float64{Planned.Params, Planned.Tokens, 1e12}},
	},
	Course: func(x []float64) float64 { return Run{Params: x[0], Tokens: x[1]}.FLOPs() / x[2] / 86400 },
	Hint:   "6·N·T FLOPs in all (2 forward, about 4 backward per parameter per token), over the rate, in seconds; a day is 86 400 s.",
	Answer: "return 6 * params * tokens / flopsPerSec / 86400",
	Why:    "Same FLOPs, different rate: the plan is a division, and the rate is set by the regime each step runs in.",
	Measured: func() (exercise.Measurement, error) {
		rs, err := predict.KeptAny(KeepStep)
		if err != nil {
			return exercise.Measurement{}, err
		}
		r := rs[0]
		return exercise.Measurement{Case: exercise.Case{
			Name: fmt.Sprintf("the planned run at the %.3g GFLOP/s your step sustained on %s", r.GFLOPS(), r.Provenance.Device),
			Args: []float64{Planned.Params, Planned.Tokens, r.FLOPS()}}, What: "your measured step rate"}, nil
	},
}
