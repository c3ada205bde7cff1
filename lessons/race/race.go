// Package race is the code behind notebooks/01-race.ipynb: latency vs throughput, and the race.
//
// The lesson puts this machine's CPU (a latency machine: a few fast cores) next to a datasheet GPU
// (a throughput machine: thousands of slow ones), counts the FLOPs of a dense layer, measures how
// the same FLOPs cost more when split into small matmuls (per-call overhead and cache reuse), and
// races one real MLP training step (workloads.MLP with its Trainer) on every device here, with the
// GPU lane taken from a recording when there is no GPU, or from a datasheet model until a recording
// exists. Lesson 3 (package batching) sweeps the same step further.
//
// Every measurement is one of its Experiments, so `whygpu record -device xla:cuda` fills the GPU
// lanes with recorded numbers.
package race

import (
	"slices"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "01-race"

// Experiment names (Experiments).
const (
	StepSweepName  = "step-sweep"     // one MLP training step vs batch (and, at GPU scale, hidden width)
	SmallLargeName = "small-vs-large" // a fixed FLOP budget split into small or large matmuls
)

// The race's sliders: batch sizes 1…512 and hidden widths 16…2048 (powers of two), starting where
// the CPU can win (batch 1) with a narrow layer.
var (
	Batches     = units.PowersOfTwo(1, 512)
	Hiddens     = units.PowersOfTwo(16, 2048)
	StartBatch  = 1
	StartHidden = 64
)

// Handshake is how long the race waits for JupyterLab to connect its sliders before it decides it
// runs headless (raceview.Options.Handshake). The race's own first round keeps a laptop's cores
// busy while the page connects, so it gets more than raceview's 6 s default.
const Handshake = 12 * time.Second

// Title names what the race runs.
const Title = "one MLP training step (64 → hidden → hidden → 10, float32, SGD)"

// SweepHidden is the hidden width of the recorded step sweep at laptop scale and of the doubling
// test's step: the race's starting width.
const SweepHidden = 64

// RaceTiming is a lighter Timing for the interactive race, so a slider move answers in a second or two.
var RaceTiming = measure.Options{Warmup: 1, Reps: 3, SampleTime: 10 * time.Millisecond}

// SweepSizes is what the step-sweep experiment measures at a scale: at laptop scale the lesson's
// batch sweep (batches 1…512 at hidden 64); at GPU scale every stop of the race's sliders (batches
// 1…512 × hidden 16…2048), so the race finds a recorded GPU lane at every slider position.
func SweepSizes(s experiments.Scale) []experiments.Size {
	return experiments.Pick(s, experiments.Grid(Batches, []int{SweepHidden}), experiments.Grid(Batches, Hiddens))
}

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = slices.Concat(raceExperiments, hookExperiments)

var raceExperiments = experiments.List{
	{
		Lesson: Lesson, Name: StepSweepName,
		Doc: "one MLP training step (64→h→h→10, f32, SGD) vs batch 1…512; laptop: hidden 64, GPU: hidden 16…2048 (the race's grid)",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return experiments.Sweep(dev, SweepSizes(s), experiments.StepTiming, nil)
		},
	},
	{
		Lesson: Lesson, Name: SmallLargeName,
		Doc: "2^25 FLOPs of f32 matmuls split into 8×8, 32×32, 128×128 or 256×256 calls",
		Run: func(dev *devices.Device, _ experiments.Scale) ([]results.Result, error) {
			return SmallVsLargeOn(dev, SplitBudget, SplitSides, nil)
		},
	},
}
