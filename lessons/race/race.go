// Package race is the code behind notebooks/01-race.ipynb: latency vs throughput, and the race.
//
// The lesson puts this machine's CPU (a latency machine: a few fast cores) next to a datasheet GPU
// (a throughput machine: thousands of slow ones), counts the FLOPs of a dense layer, measures how
// the same FLOPs cost more when split into small matmuls (per-call overhead and cache reuse), and
// races one real MLP training step (workloads.MLP with its Trainer) on every device here, with the
// GPU lane taken from a recording when there is no GPU, or from a datasheet model until a recording
// exists. Lesson 3 (package batching) sweeps the same step further.
//
// Every measurement is a registered experiment, so `whygpu record -device xla:cuda` fills the GPU
// lanes with recorded numbers.
package race

import (
	"fmt"
	"strings"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "01-race"

// Experiment names, registered in init.
const (
	StepSweepName  = "step-sweep"     // one MLP training step vs batch (and, at GPU scale, hidden width)
	SmallLargeName = "small-vs-large" // a fixed FLOP budget split into small or large matmuls
	SliverName     = "sliver"         // 1×512 @ 512×512 vs 256×512 @ 512×512
)

// The MLP the race trains: In inputs → Hidden → Hidden → Out outputs (Depth 2), tanh between layers,
// mean-squared-error loss, plain SGD, float32. Small inputs and outputs, so the hidden width decides
// how much work a step is.
const (
	In    = 64
	Out   = 10
	Depth = 2
)

// Step is the race's training step for a batch size and hidden width.
func Step(batch, hidden int) workloads.MLP {
	return workloads.MLP{Batch: batch, In: In, Hidden: hidden, Out: Out, Depth: Depth,
		Type: dtypes.Float32, Optimizer: workloads.SGD, Seed: 1}
}

// The race's sliders: batch sizes 1…512 and hidden widths 16…2048 (powers of two), starting where
// the CPU can win (batch 1) with a narrow layer.
var (
	Batches     = powers(1, 512)
	Hiddens     = powers(16, 2048)
	StartBatch  = 1
	StartHidden = 64
)

// Handshake is how long the race waits for JupyterLab to connect its sliders before it decides it
// runs headless (display.RaceOptions.Handshake). The race's own first round keeps a laptop's cores
// busy while the page connects, so it gets more than the display package's 6 s default.
const Handshake = 12 * time.Second

// Title names what the race runs.
const Title = "one MLP training step (64 → hidden → hidden → 10, float32, SGD)"

// SweepHidden is the hidden width of the lesson's static batch sweep: the race's starting width.
const SweepHidden = 64

// Timing is how a step is timed: two untimed warm-up steps, then seven samples of at least 10 ms
// each (several steps per sample when steps are short), reported as the median step.
var Timing = measure.Options{Warmup: 2, Reps: 7, SampleTime: 10 * time.Millisecond}

// RaceTiming is a lighter Timing for the interactive race, so a slider move answers in a second or two.
var RaceTiming = measure.Options{Warmup: 1, Reps: 3, SampleTime: 10 * time.Millisecond}

// CheckFLOPs is the largest step (in FLOPs) whose result is checked against the float64 host
// reference before timing: the reference runs on the host, in Go, and costs about as much per
// FLOP as the pure-Go backend.
const CheckFLOPs = 2e7

func powers(lo, hi int) []int {
	var out []int
	for v := lo; v <= hi; v *= 2 {
		out = append(out, v)
	}
	return out
}

// Size is one point of a sweep: a batch size and a hidden width.
type Size struct{ Batch, Hidden int }

// Grid returns every (batch, hidden) pair, batches varying fastest.
func Grid(batches, hiddens []int) []Size {
	var out []Size
	for _, h := range hiddens {
		for _, b := range batches {
			out = append(out, Size{b, h})
		}
	}
	return out
}

// SweepSizes is what the step-sweep experiment measures at a scale: at laptop scale the lesson's
// batch sweep (batches 1…512 at hidden 64); at GPU scale every stop of the race's sliders (batches
// 1…512 × hidden 16…2048), so the race finds a recorded GPU lane at every slider position.
func SweepSizes(s experiments.Scale) []Size {
	return experiments.Pick(s, Grid(Batches, []int{SweepHidden}), Grid(Batches, Hiddens))
}

func init() {
	experiments.Register(experiments.Experiment{
		Lesson: Lesson, Name: StepSweepName,
		Doc: "one MLP training step (64→h→h→10, f32, SGD) vs batch 1…512; laptop: hidden 64, GPU: hidden 16…2048 (the race's grid)",
		Run: func(dev *devices.Device, s experiments.Scale) ([]measure.Result, error) {
			return Sweep(dev, SweepSizes(s), Timing, nil)
		},
	})
	experiments.Register(experiments.Experiment{
		Lesson: Lesson, Name: SmallLargeName,
		Doc: "2^25 FLOPs of f32 matmuls split into 8×8, 32×32, 128×128 or 256×256 calls",
		Run: func(dev *devices.Device, _ experiments.Scale) ([]measure.Result, error) {
			return SmallVsLargeOn(dev, SplitBudget, SplitSides, nil)
		},
	})
	experiments.Register(experiments.Experiment{
		Lesson: Lesson, Name: SliverName,
		Doc: "f32 matmul B×512 @ 512×512 for B = 1 and 256: 256× the work, how much more time?",
		Run: func(dev *devices.Device, _ experiments.Scale) ([]measure.Result, error) {
			return SliverOn(dev)
		},
	})
}

// Progress reports a sweep's progress; display.Progress's Step method is one (nil: silent).
type Progress func(done, total int, format string, args ...any)

func (p Progress) step(done, total int, format string, args ...any) {
	if p != nil {
		p(done, total, format, args...)
	}
}

// NoisyCV is the spread above which a timing is taken again: a coefficient of variation over 50%
// means something else on the machine disturbed the samples (another program, a compile), not that
// the step itself varies that much.
const NoisyCV = 0.5

// Retries is how many times a disturbed timing is taken again; the least disturbed (lowest CV) is kept.
const Retries = 2

// TimeStep compiles w on dev (timed apart), checks it against the float64 reference when it is
// small (CheckFLOPs), and times it with opt. A timing whose spread says it was disturbed (NoisyCV)
// is taken again, up to Retries times, and the least disturbed one is kept.
func TimeStep(dev *devices.Device, w workloads.MLP, opt measure.Options) (measure.Result, error) {
	check := w.ExactFLOPs() <= CheckFLOPs
	best, err := measure.Run(dev, w, opt, check)
	if err != nil {
		return best, err
	}
	if check && !best.Correct() {
		return best, fmt.Errorf("%s: %s on %s gave a wrong result (relative error %.2g, tolerance %.2g)",
			Lesson, w, dev.Name, best.RelErr, best.Tolerance)
	}
	for i := 0; i < Retries && best.Stats.CV > NoisyCV; i++ {
		r, err := measure.Run(dev, w, opt, false)
		if err != nil {
			return best, err
		}
		r.RelErr = best.RelErr
		if r.Stats.CV < best.Stats.CV {
			best = r
		}
	}
	return best, nil
}

// Sweep times the training step at every size on dev, smallest first.
func Sweep(dev *devices.Device, sizes []Size, opt measure.Options, progress Progress) ([]measure.Result, error) {
	var out []measure.Result
	for i, s := range sizes {
		progress.step(i, len(sizes), "%s: batch %d × hidden %d", dev.Name, s.Batch, s.Hidden)
		r, err := TimeStep(dev, Step(s.Batch, s.Hidden), opt)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Table is a small table for display.Table, with notes (where its numbers come from) to print under it.
type Table struct {
	Header []string
	Rows   [][]string
	Notes  []string
}

// NotesText is the notes, one per line.
func (t Table) NotesText() string {
	if len(t.Notes) == 0 {
		return ""
	}
	return strings.Join(t.Notes, "\n") + "\n"
}

// String is the table as plain text (for tests and logs).
func (t Table) String() string {
	var b strings.Builder
	b.WriteString(strings.Join(t.Header, " | ") + "\n")
	for _, r := range t.Rows {
		b.WriteString(strings.Join(r, " | ") + "\n")
	}
	return b.String() + t.NotesText()
}
