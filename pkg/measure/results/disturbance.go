package results

import (
	"fmt"
	"runtime"
	"strings"
	"time"
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
	// Who names the other programs that used the most CPU meanwhile, "gopls 61%, go 12%" (% of a
	// core; read from /proc when the measurement was disturbed; at most three, each ≥ 5% of a core):
	// who to blame, or to quiet.
	Who string `json:"who,omitempty"`
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
		w := fmt.Sprintf("other programs used %.0f%% of a core%s", 100*d.OthersCores, during)
		if d.Who != "" {
			w += " (mostly " + d.Who + ")"
		}
		why = append(why, w)
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
		if d.OthersCores >= DisturbedCores && d.OthersCores > worst.OthersCores {
			worst.OthersCores, worst.Who = d.OthersCores, d.Who
		}
		worst.Throttled += d.Throttled
		worst.ThrottledTime += d.ThrottledTime
	}
	return worst.Why()
}
