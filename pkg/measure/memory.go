package measure

import (
	"fmt"
	"os"

	"github.com/shirou/gopsutil/v4/process"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// MemoryUsage is one reading of the memory in use.
type MemoryUsage struct {
	// RSS is this process's resident set size: on the CPU devices, where device buffers are host
	// memory, it includes them.
	RSS uint64 `json:"rss_bytes"`
	// GPUUsed and GPUTotal are GPU 0's memory in use (by every process) and installed, from NVML; both
	// 0 when there is no GPU or no NVML.
	GPUUsed  uint64 `json:"gpu_used_bytes,omitempty"`  // in use on GPU 0
	GPUTotal uint64 `json:"gpu_total_bytes,omitempty"` // installed on GPU 0
}

// ReadMemory reads this process's RSS (gopsutil) and GPU 0's memory (NVML). It never fails: what it
// cannot read is 0.
func ReadMemory() MemoryUsage {
	var m MemoryUsage
	if p, err := process.NewProcess(int32(os.Getpid())); err == nil {
		if mi, err := p.MemoryInfo(); err == nil {
			m.RSS = mi.RSS
		}
	}
	for _, g := range devices.ReadGPUUsage() {
		if g.Index == 0 {
			m.GPUUsed, m.GPUTotal = g.MemoryUsed, g.MemoryTotal
		}
	}
	return m
}

// Sub is the growth from before to m (each field floored at 0).
func (m MemoryUsage) Sub(before MemoryUsage) MemoryUsage {
	d := func(a, b uint64) uint64 {
		if a > b {
			return a - b
		}
		return 0
	}
	return MemoryUsage{RSS: d(m.RSS, before.RSS), GPUUsed: d(m.GPUUsed, before.GPUUsed), GPUTotal: m.GPUTotal}
}

// String formats the reading, e.g. "RSS 812.3 MiB, GPU 3.20 GiB of 139.80 GiB".
func (m MemoryUsage) String() string {
	s := "RSS " + units.BytesFixed(float64(m.RSS))
	if m.GPUTotal > 0 {
		s += fmt.Sprintf(", GPU %s of %s", units.BytesFixed(float64(m.GPUUsed)), units.BytesFixed(float64(m.GPUTotal)))
	}
	return s
}
