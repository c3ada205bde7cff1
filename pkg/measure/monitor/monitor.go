package monitor

import (
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// DefaultInterval is the sampling period used when none is given.
const DefaultInterval = 20 * time.Millisecond

// CPUSample is the utilization of every core over the interval that ends at T.
type CPUSample struct {
	T     time.Duration `json:"t_ns"`  // since the timeline's Start
	Cores []float64     `json:"cores"` // percent busy (0–100) per core, in /proc/stat order
}

// GPUSample is one GPU's utilization and memory at T.
type GPUSample struct {
	T           time.Duration `json:"t_ns"`               // since the timeline's Start
	Index       int           `json:"index"`              // NVML device index
	UtilPercent float64       `json:"util_percent"`       // share of the driver's sample period with a kernel running
	MemoryUsed  uint64        `json:"memory_used_bytes"`  // device memory in use, all processes
	MemoryTotal uint64        `json:"memory_total_bytes"` // device memory installed
}

// Mark is a labeled instant on the timeline (e.g. "training starts"), added with Sampler.Mark.
type Mark struct {
	T     time.Duration `json:"t_ns"`  // since the timeline's Start
	Label string        `json:"label"` // what happened
}

// Timeline is what a Sampler recorded. GPU is empty when there is no GPU or no NVML.
type Timeline struct {
	Start    time.Time     `json:"start"`           // when sampling began
	Interval time.Duration `json:"interval_ns"`     // sampling period
	Duration time.Duration `json:"duration_ns"`     // Start to Stop
	Cores    int           `json:"cores"`           // CPU cores sampled
	CPU      []CPUSample   `json:"cpu"`             // per-core utilization, one sample per Interval
	GPU      []GPUSample   `json:"gpu,omitempty"`   // one sample per GPU per Interval; none without a GPU
	Marks    []Mark        `json:"marks,omitempty"` // labeled instants
}

// HasGPU reports whether the timeline has GPU samples.
func (tl Timeline) HasGPU() bool { return len(tl.GPU) > 0 }

// CPUSeries returns one core's utilization over time: times in seconds since Start and percent busy.
// core −1 gives the mean over all cores.
func (tl Timeline) CPUSeries(core int) (t, pct []float64) {
	for _, s := range tl.CPU {
		var v float64
		switch {
		case core < 0 && len(s.Cores) > 0:
			for _, c := range s.Cores {
				v += c
			}
			v /= float64(len(s.Cores))
		case core < len(s.Cores):
			v = s.Cores[core]
		default:
			continue
		}
		t = append(t, s.T.Seconds())
		pct = append(pct, v)
	}
	return t, pct
}

// GPUSeries returns one GPU's utilization (percent) and memory in use (bytes) over time, with times
// in seconds since Start. All three are empty without a GPU.
func (tl Timeline) GPUSeries(index int) (t, util, memory []float64) {
	for _, s := range tl.GPU {
		if s.Index == index {
			t = append(t, s.T.Seconds())
			util = append(util, s.UtilPercent)
			memory = append(memory, float64(s.MemoryUsed))
		}
	}
	return t, util, memory
}

// MeanCPU is the mean utilization over all cores and samples, in percent.
func (tl Timeline) MeanCPU() float64 {
	_, pct := tl.CPUSeries(-1)
	if len(pct) == 0 {
		return 0
	}
	var s float64
	for _, v := range pct {
		s += v
	}
	return s / float64(len(pct))
}

// Sampler records a Timeline in the background between Start and Stop.
type Sampler struct {
	mu       sync.Mutex
	tl       Timeline
	stopOnce sync.Once // Stop closes stop once, however many times (and goroutines) call it
	stop     chan struct{}
	done     chan struct{}
	t0       time.Time
	last     []cpu.TimesStat
}

// Start begins sampling every interval (DefaultInterval when 0) until Stop.
func Start(interval time.Duration) *Sampler {
	if interval <= 0 {
		interval = DefaultInterval
	}
	s := &Sampler{stop: make(chan struct{}), done: make(chan struct{}), t0: time.Now()}
	s.tl = Timeline{Start: s.t0, Interval: interval}
	s.last, _ = cpu.Times(true)
	s.tl.Cores = len(s.last)
	s.sampleGPU(0)
	go s.loop(interval)
	return s
}

func (s *Sampler) loop(interval time.Duration) {
	defer close(s.done)
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			s.sample()
			return
		case <-tick.C:
			s.sample()
		}
	}
}

// sample records one CPU sample (utilization since the previous reading) and the GPUs.
func (s *Sampler) sample() {
	now, err := cpu.Times(true)
	t := time.Since(s.t0)
	if err == nil && len(now) == len(s.last) {
		cores := make([]float64, len(now))
		for i := range now {
			cores[i] = busyPercent(s.last[i], now[i])
		}
		s.mu.Lock()
		s.tl.CPU = append(s.tl.CPU, CPUSample{T: t, Cores: cores})
		s.mu.Unlock()
		s.last = now
	}
	s.sampleGPU(t)
}

func (s *Sampler) sampleGPU(t time.Duration) {
	for _, g := range devices.ReadGPUUsage() {
		s.mu.Lock()
		s.tl.GPU = append(s.tl.GPU, GPUSample{T: t, Index: g.Index, UtilPercent: g.UtilPercent,
			MemoryUsed: g.MemoryUsed, MemoryTotal: g.MemoryTotal})
		s.mu.Unlock()
	}
}

// busyPercent is the share of time between two readings of one core that was not idle (idle and
// iowait count as idle), in percent; 0 when no time passed.
func busyPercent(a, b cpu.TimesStat) float64 {
	total := b.Total() - a.Total()
	if total <= 0 {
		return 0
	}
	idle := (b.Idle + b.Iowait) - (a.Idle + a.Iowait)
	return min(100, max(0, 100*(total-idle)/total))
}

// Mark adds a labeled instant at the current time.
func (s *Sampler) Mark(label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tl.Marks = append(s.tl.Marks, Mark{T: time.Since(s.t0), Label: label})
}

// Stop ends sampling (taking a last sample) and returns the timeline. Calling it again, from any
// goroutine, returns the same timeline.
func (s *Sampler) Stop() Timeline {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tl.Duration == 0 {
		s.tl.Duration = time.Since(s.t0)
	}
	return s.tl
}

// Run samples every interval (DefaultInterval when 0) while fn runs and returns the timeline with
// fn's error. The sampler stops however fn ends: a panic in fn goes on after the sampling goroutine
// has stopped, never leaving it running.
func Run(interval time.Duration, fn func() error) (tl Timeline, err error) {
	s := Start(interval)
	defer func() { tl = s.Stop() }()
	return Timeline{}, fn()
}
