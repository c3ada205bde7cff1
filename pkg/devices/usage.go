package devices

import (
	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/shirou/gopsutil/v4/mem"
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
	if !nvmlInit() {
		return nil
	}
	n, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil
	}
	out := make([]GPUUsage, 0, n)
	for i := 0; i < n; i++ {
		h, ret := nvml.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			continue
		}
		u := GPUUsage{Index: i}
		if r, ret := h.GetUtilizationRates(); ret == nvml.SUCCESS {
			u.UtilPercent = float64(r.Gpu)
		}
		if m, ret := h.GetMemoryInfo(); ret == nvml.SUCCESS {
			u.MemoryUsed, u.MemoryTotal = m.Used, m.Total
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

// HostAvailableMemory is the host RAM available to new allocations (gopsutil's "available"), 0 if
// unknown.
func HostAvailableMemory() uint64 {
	vm, err := mem.VirtualMemory()
	if err != nil {
		return 0
	}
	return vm.Available
}
