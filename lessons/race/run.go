package race

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// GoBudget is the longest step (estimated) the pure-Go backend is raced at: beyond it a race would
// keep the learner waiting for a lane whose point is already made.
const GoBudget = 150 * time.Millisecond

// goEstimate is a rough guess at the pure-Go backend's step time, from this machine's measurements
// of it (about 4 GFLOP/s on large steps, and slow on weight-sized traffic at small batches).
func goEstimate(w workloads.MLP) time.Duration {
	s := w.FLOPs()/4e9 + float64(w.NumParams())*50e-9 + 100e-6
	return time.Duration(s * 1e9)
}

// Run is the race: one training step of experiments.CourseMLP(batch, hidden), timed live on every XLA device here
// (xla:cpu, and xla:cuda when there is a GPU), on GoMLX's pure-Go backend when the step is small
// enough (GoBudget), and — when there is no GPU here — a GPU lane recorded on a real GPU at this
// size, or else the datasheet model (stepcharts.BandLane). It is a raceview.Func.
func Run(batch, hidden int) ([]charts.Lane, error) {
	w := experiments.CourseMLP(batch, hidden)
	devs, err := devices.Accelerated()
	if len(devs) == 0 {
		return nil, err
	}
	var lanes []charts.Lane
	gpu := false
	for _, d := range devs {
		lanes = append(lanes, liveLane(d, w, RaceTiming))
		gpu = gpu || d.IsGPU()
	}
	if goEstimate(w) <= GoBudget {
		if d, err := devices.Open(devices.Go); err == nil {
			lanes = append(lanes, liveLane(d, w, measure.Options{Warmup: 1, Reps: 3, SampleTime: 10 * time.Millisecond}))
		}
	}
	if !gpu {
		lanes = append(lanes, GPULane(batch, hidden))
	}
	return lanes, nil
}

// liveLane times w on d; a failure (out of memory, say) becomes the lane's error.
func liveLane(d *devices.Device, w workloads.MLP, opt measure.Options) charts.Lane {
	lane := charts.Lane{Device: d.Name, Source: charts.Live, Note: d.Model}
	r, err := experiments.TimeStep(d, w, opt)
	if err != nil {
		lane.Err = err
		return lane
	}
	lane.Time = r.Stats.Median
	return lane
}

// RecordedStep returns the step recorded on a GPU at this size, if any recording has it.
func RecordedStep(batch, hidden int) (results.Result, bool) {
	rs, err := experiments.Recorded(Lesson, StepSweepName)
	if err != nil {
		return results.Result{}, false
	}
	want := experiments.CourseMLP(batch, hidden).Params()
	for _, r := range rs {
		if r.Provenance.Device == devices.CUDA && sameParams(r.Params, want) {
			return r, true
		}
	}
	return results.Result{}, false
}

func sameParams(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

// GPULane is the race's GPU lane where there is no GPU: the step recorded on a GPU at this size,
// its note saying how far the GPU model's band for the same step lies from it (gpumodel's Versus),
// or the model itself until a recording has it.
//
// A GPU that is here but failed to open (devices.GPUFailure) puts devices.GPUFailureNote first in the
// lane's note, so the lane says why it is not live.
func GPULane(batch, hidden int) charts.Lane {
	var lane charts.Lane
	instead := "the course's GPU model"
	if r, ok := RecordedStep(batch, hidden); ok {
		lane = fromresult.Lane(r)
		if v := stepcharts.ModelVersus([]results.Result{r}); len(v) > 0 {
			lane.Note += "; " + v[0]
		}
		instead = "the recording"
	} else {
		lane = stepcharts.BandLane(gpumodel.StepEstimate(experiments.CourseMLP(batch, hidden)))
	}
	if note := devices.GPUFailureNote(devices.GPUFailure(), instead); note != "" {
		lane.Note = note + "; " + lane.Note
	}
	return lane
}

// Describe says, in a line, where the race's GPU lane comes from at a size: measured live only when
// xla:cuda opened here, and the open error when a GPU is here but did not open.
func Describe(batch, hidden int) string {
	if GPUHere() {
		return "There is an NVIDIA GPU here and xla:cuda opened: the xla:cuda lane is measured live."
	}
	gpuErr := devices.GPUFailure()
	if r, ok := RecordedStep(batch, hidden); ok {
		if gpuErr != nil {
			return devices.GPUFailureNote(gpuErr, fmt.Sprintf("the xla:cuda lane recorded on %s on %s (whygpu record), at this batch and width.",
				r.Provenance.Model, r.Provenance.Date.Format("2006-01-02")))
		}
		return fmt.Sprintf("No GPU here: the xla:cuda lane was recorded on %s on %s (whygpu record), at this batch and width.",
			r.Provenance.Model, r.Provenance.Date.Format("2006-01-02"))
	}
	model := fmt.Sprintf("the %s lane, the course's GPU model of the step on an %s, drawn as a band from its optimistic to its pessimistic end (assumptions below), not a measurement.",
		stepcharts.StepModelName, short(GPU.GPU.Model))
	if gpuErr != nil {
		return devices.GPUFailureNote(gpuErr, model)
	}
	return "No GPU here and no recording at this size yet: " + model
}

// GPUHere reports whether an NVIDIA GPU is here and xla:cuda opened on it, so the race and the
// sweeps measure the GPU live. A GPU that fails to open is not here (devices.GPUFailure says why).
func GPUHere() bool { return devices.HasNVIDIAGPU() && devices.GPUFailure() == nil }
