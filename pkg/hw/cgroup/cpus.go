package cgroup

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// CPULimit is how much of the machine's CPU this process's cgroup may use: which logical CPUs (the
// cpuset: Docker's --cpuset-cpus, a Kubernetes Guaranteed pod under the static CPU manager) and how
// many cores' worth of CPU time per period (the quota: Docker's --cpus, a Kubernetes CPU limit). A quota
// alone leaves every host core visible, so a program that starts a thread per core is throttled.
type CPULimit struct {
	CPUs   []int   // the logical CPUs this process may run on, ascending (cpuset ∩ affinity); nil if unknown
	Quota  float64 // cores' worth of CPU time per period (cpu.max, cpu.cfs_quota_us); 0 when there is none
	Source string  // where each came from, e.g. "cgroup v2 cpuset.cpus.effective; cgroup v2 cpu.max"
}

// Cores is how many threads can run at once without waiting for a core or being throttled: the
// smallest of the CPUs this process may run on (host when they are unknown: runtime.NumCPU) and the
// quota rounded down, at least 1.
func (l CPULimit) Cores(host int) int {
	n := host
	if len(l.CPUs) > 0 {
		n = min(n, len(l.CPUs))
	}
	if l.Quota > 0 {
		n = min(n, max(1, int(math.Floor(l.Quota+1e-9))))
	}
	return max(1, n)
}

// String describes the limit, e.g. "cpus 2,3 (cgroup v2 cpuset.cpus.effective)" or "quota 2.00 cores (...)".
func (l CPULimit) String() string {
	var parts []string
	if len(l.CPUs) > 0 {
		parts = append(parts, "cpus "+FormatCPUList(l.CPUs))
	}
	if l.Quota > 0 {
		parts = append(parts, fmt.Sprintf("quota %.2f cores", l.Quota))
	}
	if len(parts) == 0 {
		return "no cgroup CPU limit"
	}
	return strings.Join(parts, ", ") + " (" + l.Source + ")"
}

// ReadCPULimit reads the cgroup's cpuset (v2 cpuset.cpus.effective, v1 cpuset.effective_cpus or
// cpuset.cpus), narrowed to this process's CPU affinity, and the tightest CPU quota on its cgroup and
// its ancestors (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us). Outside Linux it is empty.
func ReadCPULimit() CPULimit {
	var l CPULimit
	var src []string
	for _, g := range groups() {
		if !g.cpuset || l.CPUs != nil {
			continue
		}
		files := []string{"cpuset.effective_cpus", "cpuset.cpus"}
		if g.v2 {
			files = []string{"cpuset.cpus.effective"}
		}
	dirs:
		for _, dir := range g.dirs() {
			for _, f := range files {
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil || strings.TrimSpace(string(b)) == "" {
					continue
				}
				if cpus, err := ParseCPUList(string(b)); err == nil && len(cpus) > 0 {
					l.CPUs = cpus
					src = append(src, g.version()+" "+f)
					break dirs
				}
			}
		}
	}
	if aff := affinity(); len(aff) > 0 {
		if l.CPUs == nil {
			l.CPUs = aff
			src = append(src, "sched_getaffinity")
		} else if in := intersect(l.CPUs, aff); len(in) > 0 && len(in) < len(l.CPUs) {
			l.CPUs = in
			src = append(src, "sched_getaffinity")
		}
	}
	for _, g := range groups() {
		if !g.cpu || l.Quota > 0 {
			continue
		}
		for _, dir := range g.dirs() {
			q, file := quota(g, dir)
			if q > 0 && (l.Quota == 0 || q < l.Quota) {
				l.Quota = q
				if len(src) == 0 || !strings.HasSuffix(src[len(src)-1], file) {
					src = append(src, g.version()+" "+file)
				}
			}
		}
	}
	l.Source = strings.Join(src, "; ")
	return l
}

// quota reads one directory's CPU quota in cores (0: none) and the file it came from.
func quota(g group, dir string) (float64, string) {
	if g.v2 {
		b, err := os.ReadFile(filepath.Join(dir, "cpu.max"))
		if err != nil {
			return 0, ""
		}
		f := strings.Fields(string(b))
		if len(f) != 2 || f[0] == "max" {
			return 0, ""
		}
		q, err1 := strconv.ParseFloat(f[0], 64)
		p, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
			return 0, ""
		}
		return q / p, "cpu.max"
	}
	qb, err1 := os.ReadFile(filepath.Join(dir, "cpu.cfs_quota_us"))
	pb, err2 := os.ReadFile(filepath.Join(dir, "cpu.cfs_period_us"))
	if err1 != nil || err2 != nil {
		return 0, ""
	}
	q, err1 := strconv.ParseFloat(strings.TrimSpace(string(qb)), 64)
	p, err2 := strconv.ParseFloat(strings.TrimSpace(string(pb)), 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, "" // -1: no quota
	}
	return q / p, "cpu.cfs_quota_us"
}

// ParseCPUList parses a Linux CPU list ("0-3,8,10-11", as in cpuset files and --cpuset-cpus) into
// ascending CPU numbers.
func ParseCPUList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(strings.TrimSpace(s), ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("cgroup: CPU list %q: %q is not a CPU number", s, part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("cgroup: CPU list %q: %q is not a CPU range", s, part)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// FormatCPUList writes CPUs as a Linux CPU list with ranges: [0 1 2 3 8] -> "0-3,8".
func FormatCPUList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

func intersect(a, b []int) []int {
	var out []int
	for _, x := range a {
		if slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
