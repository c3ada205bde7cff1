package devices

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/shirou/gopsutil/v4/cpu"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices/internal/nvml"
)

// CPUFacts are what the CPU ceiling model is built from, read with gopsutil.
type CPUFacts struct {
	ModelName string  // e.g. "Intel(R) Xeon(R) Processor"
	Cores     int     // physical cores this process may use (SMT threads of one core share its FMA units)
	Threads   int     // logical CPUs this process may use at once (NumCPU: the seat's cpuset and quota)
	Limit     string  // the cgroup CPU limit Threads was cut to, "" when none narrowed it
	MHz       float64 // clock reported by the OS (gopsutil: cpuinfo_max_freq, the maximum turbo, where the kernel exposes it)
	Lanes32   int     // f32 lanes per SIMD register: 16 (AVX-512), 8 (AVX2), 4 (SSE)
	FMAUnits  int     // full-width FMA issues per cycle per core assumed by the model
	FMASource string  // why FMAUnits: the microarchitecture it was read from, or "assumed"
	BF16      bool    // native bf16 dot products (AVX512_BF16 or AMX)
	AMX       bool    // AMX tiles with bf16 (amx_bf16): a matrix unit per core, far faster than the vector lanes
	F16       bool    // native f16 arithmetic (AVX512_FP16)
}

// ReadCPUFacts reads the CPU's model, physical cores, clock and SIMD flags.
var ReadCPUFacts = sync.OnceValue(func() CPUFacts {
	n := NumCPU()
	f := CPUFacts{Cores: n, Threads: n, Lanes32: 4, FMAUnits: 1, FMASource: "no FMA flag"}
	if n < runtime.NumCPU() {
		f.Limit = CPULimit().String()
	}
	if n, err := cpu.Counts(false); err == nil && n > 0 {
		f.Cores = min(n, f.Threads)
	}
	infos, err := cpu.Info()
	if err == nil && len(infos) > 0 {
		f.ModelName = strings.TrimSpace(infos[0].ModelName)
		f.MHz = infos[0].Mhz
		flags := infos[0].Flags
		has := func(s string) bool { return slices.Contains(flags, s) }
		switch {
		case has("avx512f"):
			f.Lanes32 = 16
		case has("avx2"):
			f.Lanes32 = 8
		}
		if has("fma") {
			f.FMAUnits, f.FMASource = FMAPorts(infos[0].VendorID, infos[0].Family, f.Lanes32)
		}
		f.BF16 = has("avx512_bf16") || has("amx_bf16")
		f.AMX = has("amx_bf16")
		f.F16 = has("avx512_fp16")
	}
	if f.ModelName == "" {
		f.ModelName = runtime.GOARCH + " CPU"
	}
	return f
})

// FMAPorts is how many full-width (lanes-wide) FMAs a core of this microarchitecture issues per
// cycle, and why, where the vendor's documentation says so:
//
//   - AMD family 0x17 and 0x19 (Zen 1–4): two 256-bit FMA pipes (Zen 1: two 128-bit). With AVX2
//     that is 2 full-width FMAs; Zen 4 runs AVX-512 on the same 256-bit pipes, so 1 per cycle at 16 lanes.
//   - AMD family 0x1A (Zen 5): two 512-bit FMA pipes on server parts: 2.
//   - otherwise 2, the common case for AVX2 and server AVX-512 cores (assumed).
//
// A hypervisor may report an older CPU model than the host runs; when a measurement beats the model,
// AtLeast raises it and says so.
func FMAPorts(vendor, family string, lanes32 int) (int, string) {
	switch {
	case vendor == "AuthenticAMD" && (family == "23" || family == "25") && lanes32 == 16:
		return 1, "AMD Zen 4 (family " + family + "): AVX-512 on two 256-bit FMA pipes"
	case vendor == "AuthenticAMD" && (family == "23" || family == "25"):
		return 2, "AMD Zen 1–3 (family " + family + "): two 256-bit FMA pipes"
	case vendor == "AuthenticAMD" && family == "26":
		return 2, "AMD Zen 5 (family 26): two 512-bit FMA pipes"
	}
	return 2, "assumed: 2 FMA units"
}

// CPUModel builds a CPU's ceilings from its facts: physical cores × clock × lanes × FMA units × 2
// FLOPs. Low-precision entries are only as fast as f32 unless the CPU has native instructions for
// them (without them XLA converts to f32 and back, so they are at best f32 speed): AVX512_BF16's dot
// products do 2× the f32 rate; AMX's tiles (amx_bf16) do about AMXBF16PerCycle bf16 FLOPs per cycle
// per core, far more (the course's assumption, labeled in Source).
func CPUModel(f CPUFacts) datasheet.Ceilings {
	f32 := float64(f.Cores) * f.MHz * 1e6 * float64(f.Lanes32) * float64(f.FMAUnits) * 2
	c := datasheet.Ceilings{PeakFLOPS: map[string]float64{"float32": f32, "float64": f32 / 2, "bfloat16": f32, "float16": f32}}
	bf16 := ""
	switch {
	case f.AMX:
		c.PeakFLOPS["bfloat16"] = float64(f.Cores) * f.MHz * 1e6 * AMXBF16PerCycle
		bf16 = fmt.Sprintf("; bf16 on AMX tiles: about %d FLOPs per cycle per core (the course's assumption)", AMXBF16PerCycle)
	case f.BF16:
		c.PeakFLOPS["bfloat16"] = 2 * f32
	}
	if f.F16 {
		c.PeakFLOPS["float16"] = 2 * f32
	}
	fma := f.FMASource
	if fma == "" {
		fma = "assumed"
	}
	seat := ""
	if f.Limit != "" {
		seat = " (this seat's, of the machine's: " + f.Limit + ")"
	}
	c.Source = fmt.Sprintf("model: %d physical cores%s × %.2f GHz × %d f32 lanes × %d FMA units (%s) × 2 FLOPs (the clock the OS reports: the maximum turbo where cpuinfo_max_freq exists; sustained vector clocks are often lower; no datasheet bandwidth)%s",
		f.Cores, seat, f.MHz/1000, f.Lanes32, f.FMAUnits, fma, bf16)
	return c
}

// AMXBF16PerCycle is the bf16 FLOPs one core's AMX unit is assumed to do per cycle (about 1024: a
// 16×32 by 32×16 bf16 tile product, 16·16·32 multiply-adds, every 16 cycles) — the course's assumption.
const AMXBF16PerCycle = 1024

// AtLeast returns c with the peak of dtype raised to measured when a measurement beat the model (a
// model must never sit below a rate that was achieved), and the reason in Source: turbo clocks above
// the nominal one, or SIMD facts the hypervisor does not report. Unchanged when the model is higher.
func AtLeast(c datasheet.Ceilings, dtype string, measured float64) datasheet.Ceilings {
	p := c.Peak(dtype)
	if p <= 0 || measured <= p {
		return c
	}
	out := c
	out.PeakFLOPS = maps.Clone(c.PeakFLOPS)
	f := measured / p
	for k, v := range out.PeakFLOPS {
		out.PeakFLOPS[k] = v * f
	}
	// A model raised before (a cached ceiling, then a faster live one) keeps one clause: the factor
	// from the unraised model.
	base, total := c.Source, f
	if i := strings.Index(base, raisedClause); i >= 0 {
		var before float64
		if _, err := fmt.Sscanf(base[i+len(raisedClause):], "%g×", &before); err == nil && before > 0 {
			total *= before
		}
		base = base[:i]
	}
	out.Source = fmt.Sprintf("%s%s%.2f× to the measured %s rate (%.3g GFLOP/s), which beat the model: the cores run above the clock the OS reported or have more FMA throughput than the reported CPU model says",
		base, raisedClause, total, dtype, measured/1e9)
	return out
}

// raisedClause starts the reason AtLeast appends to a raised model's Source.
const raisedClause = "; raised "

func describeCPU(d *Device) {
	f := ReadCPUFacts()
	d.Kind = KindCPU
	d.Cores = f.Cores
	d.Model = fmt.Sprintf("%s (%d cores)", f.ModelName, f.Cores)
	if f.Threads > f.Cores {
		d.Model = fmt.Sprintf("%s (%d cores, %d threads)", f.ModelName, f.Cores, f.Threads)
	}
	d.MemoryBytes = HostMemoryLimit().Total // the container's limit when it has one
	d.Ceilings = CPUModel(f)
}

// goBackendCeilings: the pure-Go backend runs on the same CPU, so the CPU model is its roof too.
func goBackendCeilings(c datasheet.Ceilings) datasheet.Ceilings {
	c.Source = "model (same CPU, pure-Go kernels): " + strings.TrimPrefix(c.Source, "model: ")
	return c
}

// GPUInfo is what NVML reports about one GPU.
type GPUInfo struct {
	Index       int    // NVML device index
	Name        string // e.g. "NVIDIA H200"
	MemoryBytes uint64 // device memory installed
	Driver      string // NVIDIA driver version
}

// GPUs lists the NVIDIA GPUs NVML sees; empty when there is no GPU or no NVML library.
func GPUs() []GPUInfo { return gpuInfos() }

func gpuInfos() []GPUInfo {
	n, err := nvml.Count()
	if err != nil {
		return nil
	}
	driver, _ := nvml.DriverVersion()
	var out []GPUInfo
	for i := range n {
		name, err := nvml.Name(i)
		if err != nil {
			continue
		}
		info := GPUInfo{Index: i, Name: name, Driver: driver}
		if total, _, err := nvml.Memory(i); err == nil {
			info.MemoryBytes = total
		}
		out = append(out, info)
	}
	return out
}

func describeGPU(d *Device) {
	d.Kind = KindGPU
	gpus := gpuInfos()
	if len(gpus) == 0 {
		d.Model = "NVIDIA GPU (NVML unavailable)"
		return
	}
	g := gpus[0]
	d.MemoryBytes = g.MemoryBytes
	d.Model = fmt.Sprintf("%s (%.0f GiB)", g.Name, float64(g.MemoryBytes)/(1<<30))
	if s, err := datasheet.Lookup(g.Name); err == nil {
		d.Ceilings = s.Ceilings
	} else {
		d.Ceilings = datasheet.Ceilings{PeakFLOPS: map[string]float64{}, Source: "no datasheet entry for " + g.Name}
	}
}
