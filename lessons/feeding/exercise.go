package feeding

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// ExerciseBusy is lesson 07's formula for the learner: the share of the time a device is busy when
// a loader with some workers feeds it, checked against Fed and set against the learner's measured
// pipeline with one worker.
var ExerciseBusy = exercise.Exercise{
	Key:       "07/device-busy",
	Task:      "the fraction of the time the device is busy (0 to 1) when each step takes stepSec on the device and each batch takes loadSec of CPU work, shared among workers loader workers (with cores to spare).",
	Signature: "DeviceBusy(stepSec, loadSec, workers float64) float64",
	Unit:      "",
	Cases: []exercise.Case{
		{Name: "the source's 300 ms step, 400 ms loader, 1 worker", Args: []float64{0.3, 0.4, 1}},
		{Name: "300 ms step, 400 ms loader, 2 workers", Args: []float64{0.3, 0.4, 2}},
		{Name: "5 ms step, 20 ms loader, 2 workers", Args: []float64{0.005, 0.02, 2}},
	},
	Course: func(x []float64) float64 {
		_, util := Fed(time.Duration(x[0]*1e9), time.Duration(x[1]*1e9), int(x[2]))
		return util
	},
	Tolerance: 1e-3, // Fed works in whole nanoseconds
	Hint:      "a step can start only when both the device and a batch are ready: one step per max(step, load ÷ workers). The device is busy for step of each such period.",
	Answer:    "period := max(stepSec, loadSec/workers) // one step per period\n\treturn stepSec / period",
	Why:       "While the loader is the slower side, the run is input-bound (an overhead the device cannot hide); add workers until load ÷ workers ≤ step.",
	Measured: func() (exercise.Measurement, error) {
		rs, err := predict.KeptAny(KeepWorkers)
		if err != nil {
			return exercise.Measurement{}, err
		}
		r := rs[0]
		return exercise.Measurement{
			Case:  exercise.Case{Name: fmt.Sprintf("%d worker(s)", r.Params[ParamWorkers]), Args: []float64{metric(r, ParamStepUS) / 1e6, metric(r, ParamCostUS) / 1e6, float64(r.Params[ParamWorkers])}},
			Value: metric(r, ParamUtilPM) / 1000, What: "your loader sweep",
			Note: "The model leaves out the cores the workers and the device share; a ratio below 1 is what that sharing costs.",
		}, nil
	},
}
