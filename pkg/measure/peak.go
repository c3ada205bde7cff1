package measure

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/monitor"
)

// Peak tracks the peak memory of the process (CPU devices: VmHWM, the kernel's high-water mark of
// the resident set, reset through /proc/self/clear_refs) or of GPU 0 (NVML, sampled).
type Peak struct {
	gpu     bool
	base    uint64 // resident or GPU memory in use before the run
	sampler *monitor.Sampler
	hwm     bool // VmHWM could be reset: it measures this run's peak
}

// StartPeak starts tracking the peak of GPU 0 (gpu) or of this process; base is the memory in use
// the growth is counted from (0: now).
func StartPeak(gpu bool, base uint64) *Peak {
	p := &Peak{gpu: gpu, base: base}
	if p.base == 0 {
		p.base = InUse(p.gpu)
	}
	if p.gpu {
		p.sampler = monitor.Start(5 * time.Millisecond)
		return p
	}
	// Writing 5 to clear_refs resets the peak RSS to the current RSS (Linux ≥ 4.0).
	p.hwm = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	return p
}

// Fallback reports whether Stop cannot see the run's peak: on a CPU device when
// /proc/self/clear_refs could not be written (no VmHWM reset), Stop falls back to the resident set
// after the run, which may be well below the peak. A result must say so (FallbackNote).
func (p *Peak) Fallback() bool { return !p.gpu && !p.hwm }

// FallbackNote is what a figure from a Peak whose Fallback is true says it is.
const FallbackNote = "current RSS after the run, not its peak: /proc/self/clear_refs could not be written"

// Stop returns how much the memory in use rose above the start, at its peak (see Fallback).
func (p *Peak) Stop() uint64 {
	var top uint64
	if p.gpu {
		for _, s := range p.sampler.Stop().GPU {
			if s.Index == 0 && s.MemoryUsed > top {
				top = s.MemoryUsed
			}
		}
	} else if p.hwm {
		top = readHWM()
	}
	if now := InUse(p.gpu); now > top {
		top = now
	}
	if top < p.base {
		return 0
	}
	return top - p.base
}

// InUse is the memory in use now: GPU 0's (gpu) or this process's resident set (ReadMemory).
func InUse(gpu bool) uint64 {
	m := ReadMemory()
	if gpu {
		return m.GPUUsed
	}
	return m.RSS
}

// readHWM reads VmHWM (peak resident set) from /proc/self/status, in bytes; 0 when unavailable.
func readHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
