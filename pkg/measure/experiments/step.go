package experiments

import (
	"errors"
	"fmt"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The course's training step, raced in lesson 1 and swept in lesson 3: StepIn inputs → hidden →
// hidden → StepOut outputs (StepDepth 2), tanh between layers, mean-squared-error loss, plain SGD,
// float32. Small inputs and outputs, so the hidden width decides how much work a step is.
const (
	StepIn    = 64
	StepOut   = 10
	StepDepth = 2
)

// CourseMLP is the MLP of the course's training step for a batch size and hidden width.
func CourseMLP(batch, hidden int) workloads.MLP {
	return workloads.MLP{Batch: batch, In: StepIn, Hidden: hidden, Out: StepOut, Depth: StepDepth,
		Type: dtypes.Float32, Optimizer: workloads.SGD, Seed: 1}
}

// StepTiming is how a step is timed: two untimed warm-up steps, then seven samples of at least 10 ms
// each (several steps per sample when steps are short), reported as the median step.
var StepTiming = measure.Options{Warmup: 2, Reps: 7, SampleTime: 10 * time.Millisecond}

// CheckFLOPs is the largest step (in FLOPs) whose result is checked against the float64 host
// reference before timing: the reference runs on the host, in Go, and costs about as much per
// FLOP as the pure-Go backend.
const CheckFLOPs = 2e7

// NoisyCV is the spread above which a timing is taken again: a coefficient of variation over 50%
// means something else on the machine disturbed the samples (another program, a compile), not that
// the step itself varies that much.
const NoisyCV = 0.5

// Retries is how many times a disturbed timing is taken again; the least disturbed (lowest CV) is kept.
const Retries = 2

// Size is one point of a step sweep: a batch size and a hidden width.
type Size struct{ Batch, Hidden int }

// MLP is the course's training step at this size (CourseMLP).
func (s Size) MLP() workloads.MLP { return CourseMLP(s.Batch, s.Hidden) }

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

// TimeStep compiles w on dev (timed apart), checks it against the float64 reference when it is
// small (CheckFLOPs), and times it with opt. A timing whose spread says it was disturbed (NoisyCV)
// is taken again, up to Retries times, and the least disturbed one is kept; the result then says so:
// Metrics[MetricTimings] is how many timings were taken and Metrics[MetricDiscardedCV] the highest
// CV among those discarded, and its Label ends in RetriedNote.
func TimeStep(dev *devices.Device, w workloads.MLP, opt measure.Options) (results.Result, error) {
	check := w.ExactFLOPs() <= CheckFLOPs
	best, err := measure.Run(dev, w, opt, check)
	if err != nil {
		return best, err
	}
	if check && !best.Correct() {
		return best, fmt.Errorf("%s on %s gave a wrong result (relative error %.2g, tolerance %.2g)",
			w, dev.Name, best.RelErr, best.Tolerance)
	}
	return keepSteadiest(best, func() (results.Result, error) { return measure.Run(dev, w, opt, false) })
}

// keepSteadiest retakes a disturbed timing (CV over NoisyCV) with again, up to Retries times, and
// returns the lowest-CV one, marked as retried (MetricTimings, MetricDiscardedCV, RetriedNote).
func keepSteadiest(best results.Result, again func() (results.Result, error)) (results.Result, error) {
	timings, worst := 1, 0.0
	for i := 0; i < Retries && best.Stats.CV > NoisyCV; i++ {
		r, err := again()
		if err != nil {
			return best, err
		}
		timings++
		r.RelErr = best.RelErr
		if r.Stats.CV < best.Stats.CV {
			r, best = best, r
		}
		worst = max(worst, r.Stats.CV)
	}
	if timings > 1 {
		best.SetMetric(MetricTimings, float64(timings))
		best.SetMetric(MetricDiscardedCV, worst)
		best.Label += fmt.Sprintf(RetriedNote, timings, 100*worst)
	}
	return best, nil
}

// Metrics and the label note of a step TimeStep timed more than once (a disturbed first timing).
const (
	MetricTimings     = "timings"      // timings taken; the kept one is the least disturbed
	MetricDiscardedCV = "discarded_cv" // highest CV among the discarded timings
	// RetriedNote is appended to the label: the number of timings and the discarded CV in percent.
	RetriedNote = " (lowest-CV of %d timings; discarded up to CV %.0f%%)"
)

// Sweep times the training step at every size on dev, smallest first. Interrupting the cell (Kernel →
// Interrupt) stops it after the sample in progress: it returns the points measured so far with an error
// wrapping measure.ErrInterrupted that says they are a partial sweep.
func Sweep(dev *devices.Device, sizes []Size, opt measure.Options, progress Progress) ([]results.Result, error) {
	stop := measure.CatchInterrupt()
	defer stop()
	var out []results.Result
	for i, s := range sizes {
		progress.Report(i, len(sizes), "%s: batch %d × hidden %d", dev.Name, s.Batch, s.Hidden)
		r, err := TimeStep(dev, s.MLP(), opt)
		if errors.Is(err, measure.ErrInterrupted) || (err == nil && measure.Interrupted()) {
			if err == nil {
				out = append(out, r)
			}
			return out, fmt.Errorf("sweep on %s interrupted after %d of %d sizes: the %d measured so far are kept and shown as a partial sweep: %w",
				dev.Name, len(out), len(sizes), len(out), measure.ErrInterrupted)
		}
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// SweepEveryDevice times the step at every size on every XLA device here; a GPU that fails to open
// is left out and shown as such, as in LiveOnEachDevice.
func SweepEveryDevice(sizes []Size, progress Progress) ([]results.Result, error) {
	devs, err := devices.Accelerated()
	if len(devs) == 0 {
		return nil, err
	}
	var out []results.Result
	done, total := 0, len(sizes)*len(devs)
	for _, d := range devs {
		rs, err := Sweep(d, sizes, StepTiming, func(i, _ int, format string, args ...any) {
			progress.Report(done+i, total, format, args...)
		})
		out = append(out, rs...)
		if err != nil {
			return out, err
		}
		done += len(sizes)
	}
	progress.Report(total, total, "done: %s, each timed on %s", plural(len(sizes), "size"), plural(len(devs), "device"))
	return out, nil
}

// HiddenIs keeps results of the course's steps of this hidden width.
func HiddenIs(hidden int) func(results.Result) bool {
	return func(r results.Result) bool { return r.Params["hidden"] == hidden && isStep(r) }
}

// BatchIs keeps results of the course's steps of this batch size.
func BatchIs(batch int) func(results.Result) bool {
	return func(r results.Result) bool { return r.Params["batch"] == batch && isStep(r) }
}

// isStep reports whether r is of the course's step shape (StepIn, StepOut, StepDepth).
func isStep(r results.Result) bool {
	return r.Params["in"] == StepIn && r.Params["out"] == StepOut && r.Params["depth"] == StepDepth
}

// Batch and Hidden read an MLP result's batch size and hidden width, as chart coordinates.
func Batch(r results.Result) float64  { return float64(r.Params["batch"]) }
func Hidden(r results.Result) float64 { return float64(r.Params["hidden"]) }

// SamplesPerSec is a step result's throughput: batch / time per step.
func SamplesPerSec(r results.Result) float64 { return Batch(r) / r.Seconds() }

// plural is "1 device", "2 devices".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
