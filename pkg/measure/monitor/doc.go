// Package monitor samples CPU and GPU utilization and GPU memory while something runs, into a Timeline
// that marshals to JSON and that package charts draws as a utilization timeline.
//
//	tl, err := monitor.Run(0, func() error { _, err := train.FromPipeline(trainer, p, 50); return err })
//
// CPU utilization is per core, from the kernel's counters (gopsutil reads /proc/stat on Linux).
// GPU utilization and memory come from NVML (pkg/hw/devices/internal/nvml, dlopen of libnvidia-ml); on a machine without a GPU, or without the
// NVML library, the timeline simply has no GPU series: never an error, never a crash.
//
// Resolution: the kernel counts CPU time in ticks of 10 ms (USER_HZ = 100), so a 20 ms sample of one
// core reads 0, 50 or 100% busy; average several samples, or several cores, for finer values. NVML's
// utilization is itself averaged by the driver over 1/6 s to 1 s depending on the GPU, so the GPU series
// is smoother than the CPU one and lags it.
package monitor
