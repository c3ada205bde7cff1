package train

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
)

// LoopOptions configure Loop.
type LoopOptions struct {
	Steps int // training steps; 0 picks 20
	// ReadEvery is how often the loop reads the loss to the host: 1 every step (print(loss.item()) in
	// the loop), k every k steps, 0 only once at the end. The last step's loss is always read.
	ReadEvery int
	// HostWork is CPU work the host loop does before launching each step (logging, bookkeeping,
	// preparing the next batch): real computation, see data.CPUWork. With asynchronous launches it overlaps
	// the device's work on the previous step, unless a loss read made the host wait.
	HostWork time.Duration
}

// LoopReport is what Loop measured.
type LoopReport struct {
	Device     string        `json:"device"`         // device name
	Workload   string        `json:"workload"`       // the MLP, with shapes
	Steps      int           `json:"steps"`          // timed steps (after one warm-up step)
	ReadEvery  int           `json:"read_every"`     // 0: only at the end
	Reads      int           `json:"reads"`          // loss reads (host syncs)
	HostWork   time.Duration `json:"host_work_ns"`   // CPU work of the host loop per step
	Wall       time.Duration `json:"wall_ns"`        // first launch to last loss on the host
	DeviceBusy time.Duration `json:"device_busy_ns"` // time the stream spent running steps
	ReadTime   time.Duration `json:"read_ns"`        // host time in loss reads: waiting for the step + the copy
	Losses     []float64     `json:"losses"`         // every loss read, in order
}

// StepTime is the wall time per step.
func (r LoopReport) StepTime() time.Duration {
	if r.Steps == 0 {
		return 0
	}
	return r.Wall / time.Duration(r.Steps)
}

// DeviceIdle is the wall time the device was not running a step: the bubbles a sync leaves while the
// host reads, does its own work and launches again.
func (r LoopReport) DeviceIdle() time.Duration { return max(r.Wall-r.DeviceBusy, 0) }

// String is a one-line summary.
func (r LoopReport) String() string {
	when := "only at the end"
	if r.ReadEvery == 1 {
		when = "every step"
	} else if r.ReadEvery > 1 {
		when = fmt.Sprintf("every %d steps", r.ReadEvery)
	}
	return fmt.Sprintf("%s, loss read %s: %d steps in %v (%v/step), device busy %v, idle %v, %d reads took %v",
		r.Device, when, r.Steps, r.Wall.Round(time.Microsecond), r.StepTime().Round(time.Microsecond),
		r.DeviceBusy.Round(time.Microsecond), r.DeviceIdle().Round(time.Microsecond), r.Reads, r.ReadTime.Round(time.Microsecond))
}

// Loop runs a training loop of t with asynchronous launches (see data.Stream) and reads the loss to the host
// as often as opt.ReadEvery says: the hidden-sync experiment.
//
// What a sync costs here, honestly: go-xla's execute already waits for the device, so there is no
// launch queue inside the device to drain. The costs that remain, and that Train measures, are the
// copy of the loss to the host, and the overlap lost between the host's own work (HostWork, the next
// launch) and the device's work, because after a read the host starts its next iteration only when the
// device is done. Without HostWork the three variants differ only by the reads themselves and the
// hand-off between goroutines (microseconds per step); on xla:cpu the "device" is the same two cores
// the host runs on, so overlap has little to win. The report says what happened; it does not model a GPU.
//
// The step is compiled and run once, untimed, before the loop starts.
func Loop(t *workloads.Trainer, opt LoopOptions) (LoopReport, error) {
	steps := opt.Steps
	if steps <= 0 {
		steps = 20
	}
	if opt.ReadEvery < 0 {
		return LoopReport{}, fmt.Errorf("train: ReadEvery must be ≥ 0, got %d", opt.ReadEvery)
	}
	if err := warmUp(t); err != nil {
		return LoopReport{}, err
	}
	r := LoopReport{Device: t.Device().Name, Workload: t.Workload().String(), Steps: steps, ReadEvery: opt.ReadEvery, HostWork: opt.HostWork}
	s := data.NewStream()
	t0 := time.Now()
	for i := 1; i <= steps; i++ {
		if opt.HostWork > 0 {
			data.CPUWork(opt.HostWork)
		}
		ev := s.Launch(t.Step)
		if (opt.ReadEvery > 0 && i%opt.ReadEvery == 0) || i == steps {
			r0 := time.Now()
			if err := ev.Wait(); err != nil {
				_ = s.Close()
				return r, err
			}
			loss, err := t.Loss()
			r.ReadTime += time.Since(r0)
			if err != nil {
				_ = s.Close()
				return r, err
			}
			r.Reads++
			r.Losses = append(r.Losses, loss)
		}
	}
	r.Wall = time.Since(t0)
	err := s.Close()
	r.DeviceBusy = s.Busy()
	return r, err
}

// Kinds of Span.
const (
	SpanWait    = "wait"    // the training loop waits for a batch: the device is starved
	SpanUpload  = "upload"  // host→device copy of the batch
	SpanCompute = "compute" // the training step runs on the device
)

// Span is one interval of a training loop's timeline, relative to the loop's start.
type Span struct {
	Kind  string        `json:"kind"`     // SpanWait, SpanUpload or SpanCompute
	Start time.Duration `json:"start_ns"` // since the loop began
	End   time.Duration `json:"end_ns"`   // since the loop began
}

// PipelineReport is what FromPipeline measured: where the loop's time went.
type PipelineReport struct {
	Device   string        `json:"device"`     // device name
	Workload string        `json:"workload"`   // the MLP, with shapes
	Pipeline data.Pipeline `json:"pipeline"`   // the loader configuration (defaults filled in)
	Steps    int           `json:"steps"`      // timed steps
	Wall     time.Duration `json:"wall_ns"`    // the whole loop, first wait to last step
	Compute  time.Duration `json:"compute_ns"` // device busy with training steps
	Upload   time.Duration `json:"upload_ns"`  // copying batches to the device
	Waiting  time.Duration `json:"waiting_ns"` // waiting for the loader: the device starved
	Spans    []Span        `json:"spans"`      // wait, upload, compute for every step, in order
}

// Utilization is the fraction of the wall time the device spent computing (0–1).
func (r PipelineReport) Utilization() float64 {
	if r.Wall == 0 {
		return 0
	}
	return float64(r.Compute) / float64(r.Wall)
}

// String is a one-line summary.
func (r PipelineReport) String() string {
	return fmt.Sprintf("%s, %d workers × %v/batch, prefetch %d: %d steps in %v; compute %v (%.0f%%), upload %v, waiting for data %v",
		r.Device, r.Pipeline.Workers, r.Pipeline.CostPerBatch, r.Pipeline.Prefetch, r.Steps, r.Wall.Round(time.Millisecond),
		r.Compute.Round(time.Millisecond), 100*r.Utilization(), r.Upload.Round(time.Millisecond), r.Waiting.Round(time.Millisecond))
}

// warmUp compiles the step and runs it once, untimed, so one-time costs stay out of the loops.
func warmUp(t *workloads.Trainer) error {
	if _, err := t.Compile(); err != nil {
		return err
	}
	return t.Step()
}

// FromPipeline trains t for steps steps on batches produced by p, and reports the timeline: for
// each step, the wait for a batch (the device starved), its upload, and the step itself. Compilation
// and one warm-up step happen before the clock starts (and before the loaders do). A pipeline slower
// than the device shows as waiting; more workers (cores permitting) or a cheaper batch closes the gap.
func FromPipeline(t *workloads.Trainer, p data.Pipeline, steps int) (PipelineReport, error) {
	p = p.WithDefaults()
	if steps <= 0 {
		return PipelineReport{}, fmt.Errorf("train: FromPipeline needs steps > 0, got %d", steps)
	}
	if err := warmUp(t); err != nil {
		return PipelineReport{}, err
	}
	w := t.Workload()
	loader := p.Start(w.Batch*w.In, w.Batch*w.Out)
	defer loader.Stop()

	r := PipelineReport{Device: t.Device().Name, Workload: w.String(), Pipeline: p, Steps: steps}
	t0 := time.Now()
	span := func(kind string, a, b time.Time) time.Duration {
		r.Spans = append(r.Spans, Span{Kind: kind, Start: a.Sub(t0), End: b.Sub(t0)})
		return b.Sub(a)
	}
	for i := 0; i < steps; i++ {
		a := time.Now()
		b := loader.Next()
		u := time.Now()
		r.Waiting += span(SpanWait, a, u)
		if err := t.SetBatch(b.X, b.Y); err != nil {
			return r, err
		}
		c := time.Now()
		r.Upload += span(SpanUpload, u, c)
		if err := t.Step(); err != nil {
			return r, err
		}
		r.Compute += span(SpanCompute, c, time.Now())
	}
	r.Wall = time.Since(t0)
	return r, nil
}
