package bigpicture

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// ExerciseStepSeconds is lesson 08's formula for the learner: one optimizer step's time from 6·N
// FLOPs per token, checked against Rate.SecondsPerStep and applied to the rate the learner's
// training step sustained here.
var ExerciseStepSeconds = exercise.Exercise{
	Key:       "08/step-seconds",
	Task:      "the time of one optimizer step of a model of N parameters on tokensPerStep tokens, at a sustained rate of flopsPerSec (the 6·N·T estimate, attention aside).",
	Signature: "StepSeconds(params, tokensPerStep, flopsPerSec float64) float64",
	Unit:      "s",
	Cases: []exercise.Case{
		{Name: "the source's run (350 M, 1 M tokens) on an H200 at 40% of bf16 peak (model)", Args: []float64{SourceRun.Params, SourceRun.TokensPerStep, 0.4 * datasheet.H200.Peak("bfloat16")}},
		{Name: "125 M, 0.5 M tokens at 100 TFLOP/s", Args: []float64{125e6, 0.5e6, 100e12}},
	},
	Course: func(x []float64) float64 {
		return Rate{FLOPS: x[2]}.SecondsPerStep(TrainingRun{Params: x[0], TokensPerStep: x[1]})
	},
	Hint:   "each token costs 2·N FLOPs forward and about 4·N backward; a step is tokensPerStep tokens; divide by the rate.",
	Answer: "return 6 * params * tokensPerStep / flopsPerSec",
	Why:    "A big model's step is large matmuls, compute-bound: its time is FLOPs over the sustained rate, which is why MFU (that rate over the peak) is the number to improve.",
	Measured: func() (exercise.Measurement, error) {
		rs, err := predict.KeptAny(KeepRates)
		if err != nil {
			return exercise.Measurement{}, err
		}
		r := rs[0]
		return exercise.Measurement{Case: exercise.Case{
			Name: fmt.Sprintf("the source's step at the %.3g GFLOP/s your step sustained on %s", r.GFLOPS(), r.Provenance.Device),
			Args: []float64{SourceRun.Params, SourceRun.TokensPerStep, r.FLOPS()}}, What: "your measured step rate"}, nil
	},
}
