// Package memory is the code behind notebooks/06-memory.ipynb: what a training step keeps in memory
// (weights, gradients, optimizer state, activations), computed from shapes and measured as the batch
// grows; why raising the batch, not loading the model, runs out of memory; catching that error
// instead of crashing; and gradient checkpointing, which trades recomputation for memory.
//
// Notebook cells stay thin: they call the functions here. Measurements go through pkg/measure and
// are kept on disk (results.Keep) for the cells that chart them, because every GoNB cell is a new
// process. Every measurement is registered as an experiment, so `whygpu record` can run it on a GPU.
package memory

import (
	"github.com/gomlx/compute/dtypes"
	"slices"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "06-memory"

// KeepBatch is the name BatchSweep keeps its results under for the chart cell.
const KeepBatch = Lesson + "-batch"

// Measured values BatchSweep adds to each results.Result's Metrics (they survive Keep, Save and
// recording; results.Result.Metric also reads them from the Params of older results).
const (
	ParamMeasured = "measured_bytes"  // memory the process (CPU) or GPU 0 (GPU) grew by during the step
	ParamOnGPU    = "measured_on_gpu" // 1 when ParamMeasured comes from NVML, 0 when from the process's peak RSS
	// ParamPeakFallback is 1 when ParamMeasured is the resident set after the run, not its peak
	// (measure.Peak.Fallback: the peak RSS could not be reset here).
	ParamPeakFallback = "measured_peak_fallback"
)

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = slices.Concat(memoryExperiments, plannedExperiments)

var memoryExperiments = experiments.List{
	{
		Lesson: Lesson, Name: "batch-memory",
		Doc: "Adam MLP training step: memory from shapes vs measured peak, as the batch grows",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return BatchSweep(dev, s, nil)
		},
	},
}

// Model is the lesson's network at a batch size: float32, Adam, width×6 hidden layers. The laptop
// scale uses width 256 (≈ 0.4 M parameters), the GPU scale width 2048 (≈ 25 M).
func Model(s experiments.Scale, batch int) workloads.MLP {
	w := experiments.Pick(s, 256, 2048)
	return workloads.MLP{Batch: batch, In: w, Hidden: w, Depth: 6, Out: 16, Type: dtypes.Float32, Optimizer: workloads.Adam}
}

// Batches are the batch sizes the sweep measures at a scale.
func Batches(s experiments.Scale) []int {
	return experiments.Pick(s, []int{64, 512, 2048, 8192}, []int{256, 2048, 16384, 65536})
}
