package smallgpt

import (
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// ExerciseMFU is lesson 09's formula for the learner: model FLOPs utilization in percent, checked
// against results.Result.PercentOfPeak and applied to the learner's own GPT run.
var ExerciseMFU = exercise.Exercise{
	Key:       "09/mfu",
	Task:      "model FLOPs utilization (MFU), in percent: the FLOP/s a training step achieved (its FLOPs over its time) as a share of a ceiling.",
	Signature: "MFU(flopsPerStep, stepSeconds, ceilingFLOPs float64) float64",
	Unit:      "%",
	Cases: []exercise.Case{
		{Name: "a 1 PFLOP step in 2.5 s on an H200 bf16 peak (datasheet)", Args: []float64{1e15, 2.5, datasheet.H200.Peak("bfloat16")}},
		{Name: "a 2 GFLOP step in 40 ms on a 100 GFLOP/s CPU", Args: []float64{2e9, 0.04, 100e9}},
	},
	Course: func(x []float64) float64 {
		return results.Result{FLOPs: x[0], PeakFLOPS: x[2], Stats: results.Stats{Median: time.Duration(x[1] * 1e9)}}.PercentOfPeak()
	},
	Hint:   "achieved FLOP/s = flopsPerStep ÷ stepSeconds; MFU is that over the ceiling, times 100.",
	Answer: "return 100 * flopsPerStep / stepSeconds / ceilingFLOPs",
	Why:    "MFU says which regime a step is in: near the matmul ceiling it is compute-bound; far below, the step's small ops (memory-bandwidth-bound) or fixed costs (overhead-bound) take the time.",
	Measured: func() (exercise.Measurement, error) {
		run, err := RecallRun()
		if err != nil {
			return exercise.Measurement{}, err
		}
		return exercise.Measurement{Case: exercise.Case{
			Name: "your GPT step against its device's measured matmul ceiling",
			Args: []float64{run.Result.FLOPs, run.Result.Seconds(), run.Ceiling}}, What: "your training run on " + run.Result.Provenance.Device}, nil
	},
}
