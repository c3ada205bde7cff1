package batching

import (
	"fmt"
	"syscall"
	"time"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/monitor"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// WatchTime is how long each utilization run trains.
const WatchTime = 1500 * time.Millisecond

// WatchInterval is the sampling period of the utilization timelines: 50 ms, five of the kernel's
// 10 ms CPU-time ticks, so a sample reads a core's busy share to about 20%.
const WatchInterval = 50 * time.Millisecond

// WatchHidden is the hidden width of the utilization runs: the wide layer.
const WatchHidden = Wide

// Watch is one utilization run: training steps back to back on one device for WatchTime, with the
// machine's CPU cores (and GPU, when there is one) sampled meanwhile.
type Watch struct {
	Device  string
	Model   string
	Batch   int
	Hidden  int
	Steps   int
	Elapsed time.Duration
	// ProcessCPU is the CPU time (user + system, all threads) this process used during the run:
	// ProcessCPU / Elapsed is how many cores' worth it kept busy, whatever else the machine ran.
	ProcessCPU time.Duration
	Timeline   monitor.Timeline
	Err        error
}

// WatchUtilization trains at this batch (hidden WatchHidden) on every XLA device here, one after
// another, each for WatchTime, sampling utilization: one Watch per device. The step is compiled and
// warmed up before sampling starts.
func WatchUtilization(batch int) []Watch {
	devs, err := devices.Accelerated()
	if len(devs) == 0 {
		return []Watch{{Device: devices.CPU, Batch: batch, Hidden: WatchHidden, Err: err}}
	}
	var out []Watch
	for _, d := range devs {
		out = append(out, watch(d, batch, WatchHidden, WatchTime))
	}
	return out
}

func watch(d *devices.Device, batch, hidden int, dur time.Duration) Watch {
	w := Watch{Device: d.Name, Model: d.Model, Batch: batch, Hidden: hidden}
	tr, err := experiments.CourseMLP(batch, hidden).NewTrainer(d)
	if err != nil {
		w.Err = err
		return w
	}
	defer tr.Close()
	if _, err := tr.Compile(); err != nil {
		w.Err = err
		return w
	}
	for range 3 { // warm up, unsampled
		if err := tr.Step(); err != nil {
			w.Err = err
			return w
		}
	}
	start, cpu0 := time.Now(), processCPU()
	w.Timeline, w.Err = monitor.Run(WatchInterval, func() error {
		for time.Since(start) < dur {
			if err := tr.Step(); err != nil {
				return err
			}
			w.Steps++
		}
		return nil
	})
	w.Elapsed, w.ProcessCPU = time.Since(start), processCPU()-cpu0
	return w
}

// processCPU is the CPU time this process has used so far (user + system, all threads).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// CoresBusy is how many cores' worth of CPU time this process used during the run, on average.
func (w Watch) CoresBusy() float64 {
	if w.Elapsed <= 0 {
		return 0
	}
	return w.ProcessCPU.Seconds() / w.Elapsed.Seconds()
}

// SamplesPerSec is the training throughput during the run.
func (w Watch) SamplesPerSec() float64 {
	if w.Elapsed <= 0 {
		return 0
	}
	return float64(w.Steps*w.Batch) / w.Elapsed.Seconds()
}

// Chart draws the run's utilization timeline: each CPU core thin, their mean bold, the GPU (if
// any) in its own color.
func (w Watch) Chart() (*plot.Plot, error) {
	if w.Err != nil {
		return nil, w.Err
	}
	var cores []charts.Series
	for c := 0; c < w.Timeline.Cores; c++ {
		ts, pct := w.Timeline.CPUSeries(c)
		cores = append(cores, series(fmt.Sprintf("core %d", c), ts, pct))
	}
	var gpus []charts.Series
	for _, i := range gpuIndices(w.Timeline) {
		ts, util, _ := w.Timeline.GPUSeries(i)
		gpus = append(gpus, series(fmt.Sprintf("GPU %d utilization (NVML)", i), ts, util))
	}
	return charts.Utilization(fmt.Sprintf("Training on %s at batch %d (hidden %d): %s samples/s", w.Device, w.Batch, w.Hidden,
		units.Plain(units.Round3(w.SamplesPerSec()))), cores, gpus)
}

// Summary is the run in one line: steps, throughput, and mean utilization per core (and GPU).
func (w Watch) Summary() string {
	if w.Err != nil {
		return fmt.Sprintf("%s at batch %d: could not run: %v", w.Device, w.Batch, w.Err)
	}
	s := fmt.Sprintf("%s, batch %d × hidden %d: %d steps in %s (%s per step), %s samples/s; this process kept %.2f of %d cores busy; whole machine, mean per core:",
		w.Device, w.Batch, w.Hidden, w.Steps, units.Duration(w.Elapsed.Seconds()),
		units.Duration(w.Elapsed.Seconds()/float64(max(w.Steps, 1))), units.Plain(units.Round3(w.SamplesPerSec())),
		w.CoresBusy(), w.Timeline.Cores)
	for c := 0; c < w.Timeline.Cores; c++ {
		_, pct := w.Timeline.CPUSeries(c)
		s += fmt.Sprintf(" core %d %.0f%%", c, mean(pct))
	}
	for _, i := range gpuIndices(w.Timeline) {
		_, util, _ := w.Timeline.GPUSeries(i)
		s += fmt.Sprintf("; GPU %d %.0f%% (NVML: share of time a kernel ran)", i, mean(util))
	}
	return s
}

func gpuIndices(tl monitor.Timeline) []int {
	seen := map[int]bool{}
	var out []int
	for _, g := range tl.GPU {
		if !seen[g.Index] {
			seen[g.Index] = true
			out = append(out, g.Index)
		}
	}
	return out
}

func series(name string, ts, ys []float64) charts.Series {
	s := charts.Series{Name: name, Source: charts.Live}
	for i := range ts {
		s.Points = append(s.Points, charts.XY{X: ts[i], Y: ys[i]})
	}
	return s
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
