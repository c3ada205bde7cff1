package cgroup

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Root is where the cgroup file systems are mounted (a variable so tests can point it at a fake tree).
var Root = "/sys/fs/cgroup"

// procSelfCgroup is the file that names this process's cgroups.
var procSelfCgroup = "/proc/self/cgroup"

// unlimited: values at or above this are "no limit" (v1 writes 2^63 rounded down to a page).
const unlimited = 1 << 62

// Memory is the memory limit of this process's cgroup.
type Memory struct {
	Limit  uint64 // bytes the cgroup may use; 0 when no limit is set
	Used   uint64 // bytes it uses now, less reclaimable page cache (inactive_file), as the kernel counts it
	Source string // the file the limit came from, e.g. "cgroup v2 memory.max" or "cgroup v1 memory.limit_in_bytes"
	Dir    string // the cgroup directory the limit was read in
}

// Available is what a new allocation can still get under the limit (0 when none is set).
func (m Memory) Available() uint64 {
	if m.Limit == 0 || m.Used >= m.Limit {
		return 0
	}
	return m.Limit - m.Used
}

// ReadMemory returns the tightest memory limit on this process's cgroup and its ancestors, or a zero
// Memory when none is set (or this is not Linux).
func ReadMemory() Memory {
	for _, c := range groups() {
		var best Memory
		for _, dir := range c.dirs() {
			limFile, useFile := "memory.limit_in_bytes", "memory.usage_in_bytes"
			if c.v2 {
				limFile, useFile = "memory.max", "memory.current"
			}
			lim, ok := readUint(filepath.Join(dir, limFile))
			if !ok || lim >= unlimited || lim == 0 {
				continue
			}
			if best.Limit != 0 && lim >= best.Limit {
				continue
			}
			used, _ := readUint(filepath.Join(dir, useFile))
			if inactive := statValue(filepath.Join(dir, "memory.stat"), "inactive_file", "total_inactive_file"); inactive <= used {
				used -= inactive
			}
			best = Memory{Limit: lim, Used: used, Dir: dir, Source: c.version() + " " + limFile}
		}
		if best.Limit != 0 {
			return best
		}
	}
	return Memory{}
}

// OOMKills is how many processes the kernel has killed for memory: in this process's memory cgroup
// (v2 memory.events, v1 memory.oom_control "oom_kill") when it counts them, else on the whole machine
// (/proc/vmstat oom_kill). where names the counter; ok is false when none can be read.
func OOMKills() (n uint64, where string, ok bool) {
	for _, c := range groups() {
		if !c.memory {
			continue
		}
		dirs := c.dirs()
		if len(dirs) == 0 {
			continue
		}
		file := "memory.oom_control"
		if c.v2 {
			file = "memory.events"
		}
		if v, found := statLookup(filepath.Join(dirs[0], file), "oom_kill"); found {
			return v, c.version() + " " + file, true
		}
	}
	if v, found := statLookup("/proc/vmstat", "oom_kill"); found {
		return v, "/proc/vmstat", true
	}
	return 0, "", false
}

// CPU is the CPU quota accounting of this process's cgroup (cpu.stat).
type CPU struct {
	Periods        uint64 // enforcement periods that have elapsed (nr_periods)
	Throttled      uint64 // periods in which the group was throttled (nr_throttled)
	ThrottledMicro uint64 // total time throttled, µs (v2 throttled_usec; v1 throttled_time ns / 1000)
	Source         string // e.g. "cgroup v2 cpu.stat"
}

// ReadCPU returns the cgroup's throttling counters; ok is false when there is no cpu.stat to read.
func ReadCPU() (c CPU, ok bool) {
	for _, g := range groups() {
		if !g.cpu {
			continue
		}
		for _, dir := range g.dirs() {
			file := filepath.Join(dir, "cpu.stat")
			if _, err := os.Stat(file); err != nil {
				continue
			}
			c.Periods = statValue(file, "nr_periods")
			c.Throttled = statValue(file, "nr_throttled")
			if g.v2 {
				c.ThrottledMicro = statValue(file, "throttled_usec")
			} else {
				c.ThrottledMicro = statValue(file, "throttled_time") / 1000
			}
			c.Source = g.version() + " cpu.stat"
			return c, true
		}
	}
	return CPU{}, false
}

// Sub is the throttling between two readings (b after a).
func (b CPU) Sub(a CPU) CPU {
	d := func(x, y uint64) uint64 {
		if x < y {
			return 0
		}
		return x - y
	}
	return CPU{Periods: d(b.Periods, a.Periods), Throttled: d(b.Throttled, a.Throttled),
		ThrottledMicro: d(b.ThrottledMicro, a.ThrottledMicro), Source: b.Source}
}

// String describes a memory limit, e.g. "container limit 4.00 GiB (cgroup v2 memory.max), 3.10 GiB free".
func (m Memory) String() string {
	if m.Limit == 0 {
		return "no cgroup memory limit"
	}
	return fmt.Sprintf("container limit %s (%s), %s free", gib(m.Limit), m.Source, gib(m.Available()))
}

func gib(b uint64) string { return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30)) }

// group is one line of /proc/self/cgroup, resolved to where its files are.
type group struct {
	v2                  bool
	memory, cpu, cpuset bool
	mount               string // the hierarchy's mount point
	path                string // the process's path inside it
}

func (g group) version() string {
	if g.v2 {
		return "cgroup v2"
	}
	return "cgroup v1"
}

// dirs lists the process's cgroup directory and its ancestors up to the mount point, innermost first.
// In a container the path named in /proc/self/cgroup may not exist below the mount (the container sees
// its own cgroup as the root), so the mount point itself is always included.
func (g group) dirs() []string {
	var out []string
	p := filepath.Clean("/" + g.path)
	for {
		dir := filepath.Join(g.mount, p)
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			out = append(out, dir)
		}
		if p == "/" {
			break
		}
		p = filepath.Dir(p)
	}
	return out
}

// groups reads /proc/self/cgroup: the v1 memory, cpu and cpuset hierarchies, then the v2 one.
func groups() []group {
	f, err := os.Open(procSelfCgroup)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []group
	var v2 *group
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			mount := Root
			if _, err := os.Stat(filepath.Join(Root, "unified", "cgroup.procs")); err == nil {
				mount = filepath.Join(Root, "unified") // hybrid layout
			}
			v2 = &group{v2: true, memory: true, cpu: true, cpuset: true, mount: mount, path: parts[2]}
			continue
		}
		for _, ctl := range strings.Split(parts[1], ",") {
			switch ctl {
			case "memory":
				out = append(out, group{memory: true, mount: filepath.Join(Root, "memory"), path: parts[2]})
			case "cpu":
				out = append(out, group{cpu: true, mount: filepath.Join(Root, parts[1]), path: parts[2]})
			case "cpuset":
				out = append(out, group{cpuset: true, mount: filepath.Join(Root, parts[1]), path: parts[2]})
			}
		}
	}
	if v2 != nil {
		out = append(out, *v2)
	}
	return out
}

func readUint(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return unlimited, true
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// statValue is the first of keys found in a "key value" file, 0 if none.
func statValue(path string, keys ...string) uint64 {
	for _, k := range keys {
		if v, ok := statLookup(path, k); ok {
			return v
		}
	}
	return 0
}

func statLookup(path, key string) (uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
