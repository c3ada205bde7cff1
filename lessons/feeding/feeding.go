// Package feeding is the code behind notebooks/07-feeding-the-device.ipynb: the CPU's job in a GPU
// node. A goroutine input pipeline (data.Pipeline: loader workers doing real CPU work per
// batch, a prefetch queue) feeds training steps; too few workers starve the device, more workers
// feed it until the cores run out. Also: launch-bound tiny models (per-call overhead, and what
// fusing a step into one compiled executable saves) and thread oversubscription (more workers than
// cores, each calling a multi-threaded math library).
//
// Notebook cells stay thin: they call the functions here. Results are kept on disk between cells
// (results.Keep, and KeepTimelines for the pipeline timelines), and every measurement is registered
// as an experiment so `whygpu record` can run it on a GPU.
package feeding

import (
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"slices"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "07-feeding-the-device"

// Names results are kept under between cells.
const (
	KeepWorkers = Lesson + "-workers"
	KeepLaunch  = Lesson + "-launch"
	KeepOver    = Lesson + "-oversubscription"
)

// Names of the pipeline, oversubscription and launch results' sizes (Params: workers, calls) and
// measured values (Metrics: the machine's cores, the µs, utilization and latency ones); both survive
// Keep, Save and recording, and metric also reads results saved when cores were among the Params.
const (
	ParamWorkers  = "workers"           // loader workers (or concurrent math jobs)
	ParamCostUS   = "cost_per_batch_us" // CPU work per batch, µs
	ParamStepUS   = "step_us"           // the device's own step time, µs
	ParamUtilPM   = "device_util_permille"
	ParamCores    = "cores"             // logical CPUs of the machine it ran on (devices.NumCPU)
	ParamCPUPM    = "cpu_util_permille" // mean CPU utilization over all cores while the loop ran (monitor)
	ParamLatUS    = "job_latency_us"    // oversubscription: mean time one job took, submit to finish
	ParamCalls    = "calls"             // launch experiment: executable calls per forward pass
	LoaderToStep  = 2.0                 // the sweep's loader cost per batch, in device step times
	sweepSteps    = 80
	launchWidth   = 16
	launchLayers  = 16
	overMatmulDim = 192
)

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = slices.Concat(feedingExperiments, steptimeExperiments)

var feedingExperiments = experiments.List{
	{
		Lesson: Lesson, Name: "workers-sweep",
		Doc: "training from a loader pipeline (CPU work = 2× the step per batch): device utilization vs loader workers",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			rs, _, err := WorkersSweep(dev, s, Workers(s), nil)
			return rs, err
		},
	},
	{
		Lesson: Lesson, Name: "launch-bound",
		Doc: "a tiny MLP forward at batch 1: one executable per op vs one fused executable",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return LaunchBound(dev, DefaultTiny)
		},
	},
	{
		Lesson: Lesson, Name: "oversubscription",
		Doc: "throughput and latency of concurrent multi-threaded matmul jobs vs job count",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			ws := DefaultOversub.Workers()
			if dev.IsGPU() {
				ws = []int{1, 2, 4, 8} // one compiled instance per worker: keep the GPU recording short
			}
			return Oversubscription(dev, ws, DefaultOversub.Jobs)
		},
	},
}

// metric is r's measured value name (results.Result.Metric), 0 when absent.
func metric(r results.Result, name string) float64 {
	v, _ := r.Metric(name)
	return v
}
