package measure

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/panics"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
)

// Unsynced is one workload timed two ways, for the "timing without waiting lies" lesson.
type Unsynced struct {
	// Launch stops the timer as soon as the launch returns, the way a PyTorch benchmark without
	// torch.cuda.synchronize() does: it measures the launch, and its FLOP/s are impossible.
	Launch results.Result `json:"launch"`
	// Synced stops the timer when the work has completed: the honest number.
	Synced results.Result `json:"synced"`
}

// String is a two-line summary.
func (u Unsynced) String() string {
	return fmt.Sprintf("timer stopped at launch:     median %v → %.1f GFLOP/s (%.0f%% of peak)\ntimer stopped at completion: median %v → %.1f GFLOP/s (%.0f%% of peak)",
		u.Launch.Stats.Median, u.Launch.GFLOPS(), u.Launch.PercentOfPeak(),
		u.Synced.Stats.Median, u.Synced.GFLOPS(), u.Synced.PercentOfPeak())
}

// EmulatedLaunch says how TimeWithoutWaiting launches, on every device: go-xla (v0.4.1) has no
// execute-without-waiting, so the asynchronous launch is the course's own emulation.
const EmulatedLaunch = "emulated launch: the course's goroutine launch queue (data.Stream), on every device, since go-xla's execute always waits"

// TimeWithoutWaiting runs w on dev through an emulated asynchronous launch (data.Stream: the work
// runs on another goroutine and Launch returns at once, as a CUDA kernel launch would; go-xla has no
// execute-without-waiting, so this is the emulation on every device, a GPU included — see
// EmulatedLaunch, which the launch-timed result's label carries) and times every run twice:
// from launch to Launch returning, and from launch to completion (Event.Wait, like
// torch.cuda.synchronize()). Each run completes before the next starts, so both clocks see the same
// runs. Options are as for Time; reps end when both MinTime and Reps are met on the completion clock.
func TimeWithoutWaiting(dev *devices.Device, w workloads.Workload, opt Options) (u Unsynced, err error) {
	defer panics.Catch(&err, "measure: %s on %s", w, dev.Name)
	inst, err := w.Prepare(dev)
	if err != nil {
		return Unsynced{}, err
	}
	defer inst.Close()
	synced := newResult(dev, w)
	if synced.Compile, err = inst.Compile(); err != nil {
		return Unsynced{}, fmt.Errorf("measure: compiling %s on %s: %w", w, dev.Name, err)
	}
	s := data.NewStream()
	defer func() { _ = s.Close() }()
	opt = opt.withDefaults()
	for i := 0; i < opt.Warmup; i++ {
		if err := s.Launch(inst.Run).Wait(); err != nil {
			return Unsynced{}, err
		}
	}
	var launch, done []time.Duration
	var total time.Duration
	probe := StartProbe()
	for len(done) < opt.Reps || (total < opt.MinTime && len(done) < opt.MaxReps) {
		t0 := opt.Clock.Now()
		ev := s.Launch(inst.Run)
		launch = append(launch, opt.Clock.Now().Sub(t0))
		if err := ev.Wait(); err != nil {
			return Unsynced{}, err
		}
		d := opt.Clock.Now().Sub(t0)
		done = append(done, d)
		total += d
	}
	synced.Stats = probe.Summarize(done)
	lied := synced
	lied.Label += " — timer stopped at launch (wrong; " + EmulatedLaunch + ")"
	lied.Stats = Summarize(launch)
	lied.Stats.Disturbance = synced.Stats.Disturbance
	return Unsynced{Launch: lied, Synced: synced}, nil
}
