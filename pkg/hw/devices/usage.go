package devices

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices/internal/nvml"
	"github.com/shirou/gopsutil/v4/mem"

	"github.com/gpu-course/whygpu/pkg/hw/cgroup"
)

// GPUUsage is one reading of a GPU's utilization and memory, as NVML reports it.
type GPUUsage struct {
	Index int `json:"index"` // NVML device index
	// UtilPercent is the percentage of the driver's last sample period (1/6 s to 1 s, depending on the
	// GPU) during which one or more kernels ran on the GPU: "busy", not "how much of the chip".
	UtilPercent float64 `json:"util_percent"`
	MemoryUsed  uint64  `json:"memory_used_bytes"`  // device memory in use, all processes
	MemoryTotal uint64  `json:"memory_total_bytes"` // device memory installed
}

// ReadGPUUsage reads every GPU's utilization and memory. It returns nil, never an error or a crash,
// when there is no GPU or no NVML library: callers simply have no GPU series.
func ReadGPUUsage() []GPUUsage {
	n, err := nvml.Count()
	if err != nil {
		return nil
	}
	out := make([]GPUUsage, 0, n)
	for i := range n {
		u := GPUUsage{Index: i}
		if p, err := nvml.Utilization(i); err == nil {
			u.UtilPercent = float64(p)
		}
		if total, used, err := nvml.Memory(i); err == nil {
			u.MemoryUsed, u.MemoryTotal = used, total
		}
		out = append(out, u)
	}
	return out
}

// AvailableMemory is how many bytes a new allocation on this device can still get: free GPU memory
// (NVML, GPU 0) for a GPU, available host RAM for the CPU devices. 0 means unknown.
func (d *Device) AvailableMemory() uint64 {
	if d.IsGPU() {
		for _, u := range ReadGPUUsage() {
			if u.Index == 0 && u.MemoryTotal >= u.MemoryUsed {
				return u.MemoryTotal - u.MemoryUsed
			}
		}
		return 0
	}
	return HostAvailableMemory()
}

// HostAvailableMemory is the memory available to new allocations of this process: the container's
// (cgroup memory limit less what the cgroup uses) when a limit is set and tighter than the host's, else
// the host RAM available (gopsutil's "available"); 0 if unknown. HostMemoryLimit says which.
func HostAvailableMemory() uint64 {
	return HostMemoryLimit().Available
}

// MemoryLimit is the memory budget of this process and where it came from.
type MemoryLimit struct {
	Total     uint64 // the limit: the cgroup's, or the host's RAM
	Available uint64 // what a new allocation can still get
	Container bool   // true when the cgroup limit is the tighter one
	Source    string // "cgroup v2 memory.max", "cgroup v1 memory.limit_in_bytes" or "host RAM"
}

// String says which limit applies, e.g. "container limit 4.00 GiB (cgroup v2 memory.max), 3.10 GiB available".
func (m MemoryLimit) String() string {
	what := "host RAM"
	if m.Container {
		what = "container limit"
	}
	return fmt.Sprintf("%s %.2f GiB (%s), %.2f GiB available", what, float64(m.Total)/(1<<30), m.Source,
		float64(m.Available)/(1<<30))
}

// HostMemoryLimit is the memory budget of this process: the container's cgroup limit when one is set and
// leaves less than the host, else the host's RAM.
func HostMemoryLimit() MemoryLimit {
	var m MemoryLimit
	if vm, err := mem.VirtualMemory(); err == nil {
		m = MemoryLimit{Total: vm.Total, Available: vm.Available, Source: "host RAM"}
	}
	if cg := cgroup.ReadMemory(); cg.Limit != 0 && (m.Total == 0 || cg.Limit < m.Total || cg.Available() < m.Available) {
		avail := cg.Available()
		if m.Total != 0 {
			avail = min(avail, m.Available) // the host may have less left than the limit allows
		}
		m = MemoryLimit{Total: cg.Limit, Available: avail, Container: true, Source: cg.Source}
	}
	return m
}
