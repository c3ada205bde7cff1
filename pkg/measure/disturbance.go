package measure

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"

	"github.com/gpu-course/whygpu/pkg/cgroup"
)

// DisturbedCores is the CPU time other processes may use while a measurement runs before it is marked
// disturbed: 10% of one core (0.1 core-seconds per second).
const DisturbedCores = 0.10

// Disturbance is what else happened on the machine while a measurement ran: the CPU time other
// processes used on this process's CPUs (from the kernel's per-CPU counters, /proc/stat, for the CPUs of
// the seat's cpuset — a neighbour on other cores does not slow this one — less this process's own CPU
// time) and, in a container with a CPU quota, how often the cgroup was throttled (cpu.stat). A timed
// result keeps it so that a neighbour's load is never taken for the hardware's speed.
type Disturbance struct {
	Wall time.Duration `json:"wall_ns"` // how long the measurement ran
	// OthersCores is the CPU other processes used, in cores on average (1.0 = one core fully busy).
	OthersCores float64 `json:"others_cores"`
	// Throttled is how many of the cgroup's CPU quota periods throttled it, ThrottledTime for how long.
	Throttled     uint64        `json:"throttled_periods,omitempty"`
	ThrottledTime time.Duration `json:"throttled_ns,omitempty"`
	// CPUs is how many logical CPUs OthersCores was counted on (the seat's cpuset, else the machine's).
	CPUs    int  `json:"cpus,omitempty"`
	Counted bool `json:"counted"` // false when the counters could not be read
}

// Disturbed reports whether the measurement should be marked: other processes used at least
// DisturbedCores of a core on average, or the container's CPU quota throttled it at all.
func (d Disturbance) Disturbed() bool {
	return d.Counted && (d.OthersCores >= DisturbedCores || d.Throttled > 0)
}

// OthersPercent is the other processes' CPU time as a percentage of the CPUs it was counted on (the
// seat's, or the whole machine's when the seat has no cpuset).
func (d Disturbance) OthersPercent() float64 {
	n := d.CPUs
	if n <= 0 {
		n = runtime.NumCPU()
	}
	return 100 * d.OthersCores / float64(n)
}

// Advice says what disturbed the measurement and what to do, or "" for a quiet one.
func (d Disturbance) Advice() string {
	if !d.Disturbed() {
		return ""
	}
	return "disturbed: " + d.why(" during this measurement") + "; the time is slower than the hardware: rerun when the machine is quiet"
}

// Why says in a few words what disturbed the measurement — "other programs used 60% of a core", "the
// container's CPU quota paused it 3 times (12ms in all): give this seat more CPU" — or "" for a quiet one.
func (d Disturbance) Why() string { return d.why("") }

func (d Disturbance) why(during string) string {
	if !d.Disturbed() {
		return ""
	}
	var why []string
	if d.OthersCores >= DisturbedCores {
		why = append(why, fmt.Sprintf("other programs used %.0f%% of a core%s", 100*d.OthersCores, during))
	}
	if d.Throttled > 0 {
		why = append(why, fmt.Sprintf("the container's CPU quota paused it %d times (%v in all): give this seat more CPU", d.Throttled,
			d.ThrottledTime.Round(time.Millisecond)))
	}
	return strings.Join(why, "; ")
}

// WhyDisturbed says what disturbed any of these results, for a table row built from them
// (units.Table.Disturbed): the most CPU other programs used during any one of them and all the CPU
// quota's pauses; "" when every one was quiet.
func WhyDisturbed(rs ...Result) string {
	var worst Disturbance
	for _, r := range rs {
		d := r.Stats.Disturbance
		if !d.Disturbed() {
			continue
		}
		worst.Counted = true
		if d.OthersCores >= DisturbedCores {
			worst.OthersCores = max(worst.OthersCores, d.OthersCores)
		}
		worst.Throttled += d.Throttled
		worst.ThrottledTime += d.ThrottledTime
	}
	return worst.Why()
}

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
func (p *Probe) Summarize(samples []time.Duration) Stats {
	st := Summarize(samples)
	st.Disturbance = p.Stop()
	return st
}

// Stop returns what other processes and the CPU quota did since StartProbe.
func (p *Probe) Stop() Disturbance {
	d := Disturbance{Wall: time.Since(p.start)}
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
