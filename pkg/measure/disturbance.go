package measure

import (
	"fmt"
	"os"
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
	procs        map[int]procCPU // every process's CPU at the start, for the attribution
}

// StartProbe starts counting.
func StartProbe() *Probe {
	p := &Probe{start: time.Now()}
	p.busy, p.total, p.cpus, p.loadOK = seatCPUTime()
	p.self = selfCPU()
	p.cg, p.cgOK = cgroup.ReadCPU()
	p.procs = readProcs()
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
			if d.OthersCores >= results.DisturbedCores && p.procs != nil {
				d.Who = topOthers(p.procs, readProcs(), wall)
			}
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

// procCPU is one process's CPU time from /proc/<pid>/stat: its own threads' and that of the children
// it has waited for, in seconds.
type procCPU struct {
	name     string
	ppid     int
	own      float64 // its threads
	children float64 // children it has waited for
}

// clockTick is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on every Linux the course runs on).
const clockTick = 100

// readProcs reads every process's CPU time (nil where /proc cannot be read: not Linux). It reads one
// small file per process, ~1 ms per hundred processes.
func readProcs() map[int]procCPU {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]procCPU, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if pc, ok := parseStat(string(b)); ok {
			out[pid] = pc
		}
	}
	return out
}

// parseStat reads the name and utime+stime+cutime+cstime of a /proc/<pid>/stat line.
func parseStat(line string) (procCPU, bool) {
	open, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
	if open < 0 || end < open {
		return procCPU{}, false
	}
	f := strings.Fields(line[end+1:])
	// after the name: state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17), counted from 1
	if len(f) < 15 {
		return procCPU{}, false
	}
	var t [4]float64
	for i := range t {
		v, err := strconv.ParseFloat(f[11+i], 64)
		if err != nil {
			return procCPU{}, false
		}
		t[i] = v / clockTick
	}
	ppid, _ := strconv.Atoi(f[1])
	return procCPU{name: line[open+1 : end], ppid: ppid, own: t[0] + t[1], children: t[2] + t[3]}, true
}

// topOthers names the processes other than this one that used the most CPU between two readings, in %
// of a core over wall seconds — "gopls 61%, go 12%": at most three, each at least 5% of a core;
// processes of one name are added up ("go" for every go command that ran), and those of this process's
// parent — in a notebook the kernel: its gopls, the go commands gopls runs — are marked "(this kernel)".
func topOthers(before, after map[int]procCPU, wall float64) string {
	self := os.Getpid()
	byName := map[string]float64{}
	// A child that ended meanwhile: its parent's children time grew by the child's whole life, of
	// which the window holds only what came after the first reading.
	before2 := map[int]float64{} // parent pid → children's time before the window that ended meanwhile
	for pid, b := range before {
		if _, alive := after[pid]; !alive {
			before2[b.ppid] += b.own + b.children
		}
	}
	kernel := os.Getppid() // in a notebook, the kernel (GoNB): it and what it started are "this kernel"'s
	ours := func(pid int) bool {
		for i := 0; i < 32 && pid > 1; i++ {
			if pid == kernel {
				return true
			}
			pid = after[pid].ppid
		}
		return false
	}
	for pid, a := range after {
		if pid == self {
			continue
		}
		name := a.name
		if kernel > 1 && ours(pid) {
			name += " (this kernel)"
		}
		d := a.own + a.children // a process that started meanwhile: all its time is the window's
		if b, ok := before[pid]; ok {
			// the same process (its name may have changed: an exec, a kernel worker's job)
			d -= b.own + b.children + before2[pid]
		}
		if d > 0 {
			byName[name] += d
		}
	}
	type share struct {
		Name  string
		Cores float64
	}
	var top []share
	for name, d := range byName {
		if c := d / wall; c >= 0.05 {
			top = append(top, share{name, c})
		}
	}
	slices.SortFunc(top, func(a, b share) int {
		if a.Cores != b.Cores {
			if a.Cores > b.Cores {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	var parts []string
	for i, p := range top {
		if i == 3 {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %.0f%%", p.Name, 100*p.Cores))
	}
	return strings.Join(parts, ", ")
}
