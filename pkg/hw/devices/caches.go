package devices

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Cache is one level of the CPU's cache hierarchy as the operating system reports it.
type Cache struct {
	Level int    // 1, 2, 3
	Type  string // "Data", "Instruction", "Unified"
	Bytes int64  // capacity of one instance
	// SharedBy is how many logical CPUs share one instance (1: private to a core).
	SharedBy int
}

// Name is "L1d", "L1i", "L2", "L3".
func (c Cache) Name() string {
	switch c.Type {
	case "Data":
		return fmt.Sprintf("L%dd", c.Level)
	case "Instruction":
		return fmt.Sprintf("L%di", c.Level)
	}
	return fmt.Sprintf("L%d", c.Level)
}

// String is e.g. "L2 1.00 MiB per core" or "L3 32.0 MiB shared by 2 CPUs".
func (c Cache) String() string {
	who := "per core"
	if c.SharedBy > 1 {
		who = fmt.Sprintf("shared by %d CPUs", c.SharedBy)
	}
	return fmt.Sprintf("%s %s %s", c.Name(), formatCacheBytes(c.Bytes), who)
}

func formatCacheBytes(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.3g KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// sysCacheDir is where Linux describes CPU 0's caches.
const sysCacheDir = "/sys/devices/system/cpu/cpu0/cache"

// CPUCaches reads CPU 0's data and unified caches from Linux's sysfs, smallest level first (the
// instruction cache is left out: data does not flow through it). It is an error where sysfs has no
// cache description (not Linux, or a container that hides it).
func CPUCaches() ([]Cache, error) { return readCaches(sysCacheDir) }

func readCaches(dir string) ([]Cache, error) {
	idx, _ := filepath.Glob(filepath.Join(dir, "index*"))
	var out []Cache
	for _, d := range idx {
		read := func(name string) string {
			b, _ := os.ReadFile(filepath.Join(d, name))
			return strings.TrimSpace(string(b))
		}
		level, err := strconv.Atoi(read("level"))
		if err != nil {
			continue
		}
		c := Cache{Level: level, Type: read("type"), SharedBy: countCPUs(read("shared_cpu_list"))}
		if c.Type == "Instruction" {
			continue
		}
		if c.Bytes, err = parseCacheSize(read("size")); err != nil {
			return nil, fmt.Errorf("devices: cache %s: %w", d, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("devices: no CPU cache description in %s", dir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Level < out[j].Level })
	return out, nil
}

// parseCacheSize reads sysfs sizes: "32K", "1024K", "32768K", "8M", "512".
func parseCacheSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad cache size %q", s)
	}
	return n * mult, nil
}

// countCPUs counts a CPU list such as "0", "0-1", "0-3,8-11".
func countCPUs(list string) int {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		n += b - a + 1
	}
	return max(n, 1)
}
