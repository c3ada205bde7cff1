// Package batching is the code behind notebooks/03-batch-and-width.ipynb: batch size and layer
// width.
//
// It sweeps the course's training step (experiments.CourseMLP, raced in lesson 1: 64 → hidden → hidden → 10, f32, SGD) over
// the batch size at a narrow and a wide hidden layer, and over the hidden width at a small batch, on
// every XLA device here, with the GPU taken from a recording when there is no GPU (or the datasheet
// GPU model, package gpumodel, until one exists). It reports time per step, samples per second, achieved
// FLOP/s and share of peak, the crossover batch, an occupancy table that explains why the GPU's
// time stays flat, and utilization timelines (package monitor) of a small and a large batch.
package batching

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "03-batch-and-width"

// Experiment names (Experiments).
const (
	BatchSweepName = "batch-sweep" // time per step vs batch, at a narrow and a wide hidden layer
	WidthSweepName = "width-sweep" // time per step vs hidden width, at a small batch
)

// Narrow and Wide are the hidden widths of the batch sweep.
const (
	Narrow = 64
	Wide   = 512
)

// WidthBatch is the batch size of the width sweep: small, where the GPU is starved.
const WidthBatch = 16

// Batches are the batch sizes swept at a scale: 1…512 on a laptop, 1…8192 at GPU scale (where the
// GPU's floor lasts much longer).
func Batches(s experiments.Scale) []int {
	return experiments.Pick(s, units.PowersOfTwo(1, 512), units.PowersOfTwo(1, 8192))
}

// Widths are the hidden widths swept at a scale: 16…2048 on a laptop, 16…8192 at GPU scale.
func Widths(s experiments.Scale) []int {
	return experiments.Pick(s, units.PowersOfTwo(16, 2048), units.PowersOfTwo(16, 8192))
}

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = experiments.List{
	{
		Lesson: Lesson, Name: BatchSweepName,
		Doc: "one MLP training step (64→h→h→10, f32, SGD) vs batch, hidden 64 and 512; laptop 1…512, GPU 1…8192",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			var out []results.Result
			for _, h := range []int{Narrow, Wide} {
				rs, err := experiments.Sweep(dev, experiments.Grid(Batches(s), []int{h}), experiments.StepTiming, nil)
				out = append(out, rs...)
				if err != nil {
					return out, err
				}
			}
			return out, nil
		},
	},
	{
		Lesson: Lesson, Name: WidthSweepName,
		Doc: "one MLP training step (64→h→h→10, f32, SGD) at batch 16 vs hidden width; laptop 16…2048, GPU 16…8192",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return experiments.Sweep(dev, widthSizes(Widths(s)), experiments.StepTiming, nil)
		},
	},
}

func widthSizes(widths []int) []experiments.Size {
	var out []experiments.Size
	for _, h := range widths {
		out = append(out, experiments.Size{Batch: WidthBatch, Hidden: h})
	}
	return out
}

// KeepName is the name a sweep's results are kept under for the chart cells: "batch-64",
// "batch-512", "width".
func KeepName(what string) string { return Lesson + "-" + what }

// BatchSweep times the step at every batch of the current scale, at this hidden width, on every XLA
// device here; adds the steps recorded on devices not here (a GPU) at the same width; and keeps them
// (KeepName("batch-<hidden>")).
func BatchSweep(hidden int, progress experiments.Progress) ([]results.Result, error) {
	sizes := experiments.Grid(Batches(experiments.CurrentScale()), []int{hidden})
	if err := ceilingsFirst(progress); err != nil {
		return nil, err
	}
	out, err := experiments.SweepEveryDevice(sizes, progress)
	if err == nil {
		out, err = experiments.WithRecordedWhere(out, Lesson, BatchSweepName, experiments.HiddenIs(hidden))
	}
	return out, results.KeepOr(KeepName(fmt.Sprintf("batch-%d", hidden)), out, err) // a failure is kept too: the chart cell refuses
}

// ceilingsFirst measures each device's ceilings before a sweep (cached for a session: lessons 01 and
// 02 usually measured them), so every result carries them and YourSweep can set the smallest
// batch's time against its budgets.
func ceilingsFirst(progress experiments.Progress) error {
	devs, _ := devices.Accelerated() // a device that fails to open is SweepEveryDevice's to report
	for _, d := range devs {
		progress.Report(0, 1, "%s: its measured ceilings (a large matmul and a large copy) for the time budget", d.Name)
		if _, err := measure.MeasureCeilings(d); err != nil {
			return err
		}
	}
	return nil
}

// WidthSweep times the step at batch WidthBatch for every hidden width of the current scale, on
// every XLA device here, adds recorded results of devices not here, and keeps them (KeepName("width")).
func WidthSweep(progress experiments.Progress) ([]results.Result, error) {
	out, err := experiments.SweepEveryDevice(widthSizes(Widths(experiments.CurrentScale())), progress)
	if err == nil {
		out, err = experiments.WithRecordedWhere(out, Lesson, WidthSweepName, experiments.BatchIs(WidthBatch))
	}
	return out, results.KeepOr(KeepName("width"), out, err) // a failure is kept too: the chart cell refuses
}

// RecallBatch reads the kept batch sweep of a hidden width.
func RecallBatch(hidden int) ([]results.Result, error) {
	return results.Recall(KeepName(fmt.Sprintf("batch-%d", hidden)))
}

// RecallWidth reads the kept width sweep.
func RecallWidth() ([]results.Result, error) { return results.Recall(KeepName("width")) }
