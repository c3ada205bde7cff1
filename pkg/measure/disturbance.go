package measure

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"

	"github.com/gpu-course/whygpu/pkg/hw/cgroup"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Probe counts what other processes do from its start; Stop returns the Disturbance.
type Probe struct {
	start        time.Time
	busy, total  float64 // the counted CPUs, seconds
	cpus         int     // how many CPUs busy and total count
	self         float64 // this process, seconds
	cg           cgroup.CPU
	cgOK, loadOK bool
}

// StartProbe starts counting.
func StartProbe() *Probe {
	p := &Probe{start: time.Now()}
	p.busy, p.total, p.cpus, p.loadOK = seatCPUTime()
	p.self = selfCPU()
	p.cg, p.cgOK = cgroup.ReadCPU()
	return p
}

// Summarize is Summarize(samples) with the Disturbance since StartProbe: for timings a workload takes
// itself (a training loop, concurrent workers) instead of through Time, taken after the probe started.
func (p *Probe) Summarize(samples []time.Duration) results.Stats {
	st := Summarize(samples)
	st.Disturbance = p.Stop()
	return st
}

// Stop returns what other processes and the CPU quota did since StartProbe.
func (p *Probe) Stop() results.Disturbance {
	d := results.Disturbance{Wall: time.Since(p.start)}
	busy, total, cpus, ok := seatCPUTime()
	self := selfCPU()
	if ok && p.loadOK && cpus == p.cpus && total > p.total {
		// total counts every counted CPU's time, so wall-clock seconds = (total delta) / CPUs.
		wall := (total - p.total) / float64(cpus)
		if wall > 0 {
			d.OthersCores = max(0, ((busy-p.busy)-(self-p.self))/wall)
			d.CPUs = cpus
			d.Counted = true
		}
	}
	if p.cgOK {
		if c, ok := cgroup.ReadCPU(); ok {
			diff := c.Sub(p.cg)
			d.Throttled, d.ThrottledTime = diff.Throttled, time.Duration(diff.ThrottledMicro)*time.Microsecond
			d.Counted = true
		}
	}
	return d
}

// seatCPUs is the CPUs the probe counts: the seat's (cgroup cpuset and affinity), nil for all of them.
var seatCPUs = sync.OnceValue(func() []int { return cgroup.ReadCPULimit().CPUs })

// seatCPUTime sums the busy and total time of the seat's CPUs (every CPU when the seat's are unknown or
// the per-CPU counters do not name them): busy and total seconds, and how many CPUs they cover.
func seatCPUTime() (busy, total float64, cpus int, ok bool) {
	if want := seatCPUs(); len(want) > 0 {
		if per, err := cpu.Times(true); err == nil {
			for _, t := range per {
				n, err := strconv.Atoi(strings.TrimPrefix(t.CPU, "cpu"))
				if err != nil || !slices.Contains(want, n) {
					continue
				}
				total += t.Total()
				busy += t.Total() - t.Idle - t.Iowait
				cpus++
			}
			if cpus == len(want) {
				return busy, total, cpus, true
			}
		}
	}
	t, err := cpu.Times(false)
	if err != nil || len(t) == 0 {
		return 0, 0, 0, false
	}
	total = t[0].Total()
	return total - t[0].Idle - t[0].Iowait, total, runtime.NumCPU(), true
}

func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
