package devices

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/shirou/gopsutil/v4/cpu"
)

// Ceilings are the roofs a device cannot exceed: peak FLOP/s per dtype and main-memory bandwidth.
//
// Peak FLOP/s are keyed by dtype name as GoMLX spells it ("float64", "float32", "bfloat16",
// "float16") plus "tf32" for float32 matmuls on tensor cores. A zero or missing entry means unknown.
type Ceilings struct {
	PeakFLOPS      map[string]float64 `json:"peak_flops"`                      // FLOP/s by dtype name or "tf32"
	BandwidthBytes float64            `json:"bandwidth_bytes_per_s,omitempty"` // main-memory bytes/s (0: unknown)
	// Source says where the figures come from: "datasheet: ..." or "model: ..." (never a measurement;
	// measured ceilings live in package measure).
	Source string `json:"source"`
}

// Peak returns the peak FLOP/s for a dtype name, or 0 when unknown.
func (c Ceilings) Peak(dtype string) float64 { return c.PeakFLOPS[dtype] }

// Ridge returns the ridge point in FLOPs per byte for a dtype: peak compute divided by bandwidth,
// the arithmetic intensity above which an operation is compute-bound. 0 when either is unknown.
func (c Ceilings) Ridge(dtype string) float64 {
	if c.BandwidthBytes == 0 {
		return 0
	}
	return c.Peak(dtype) / c.BandwidthBytes
}

// Spec is one row of the datasheet table.
type Spec struct {
	Model       string   // marketing name, e.g. "NVIDIA H200 SXM"
	Match       []string // lower-case substrings of the device name reported by the driver
	MemoryBytes uint64   // device memory
	Ceilings    Ceilings // peaks and bandwidth
}

const (
	tera = 1e12
	giga = 1e9
)

// Datasheet is the table of published ceilings the course quotes. Dense (no structured sparsity)
// tensor-core figures; the headline numbers NVIDIA prints with sparsity are twice these.
var Datasheet = []Spec{
	{
		Model: "NVIDIA H100 SXM", Match: []string{"h100"}, MemoryBytes: 80 << 30,
		Ceilings: Ceilings{
			PeakFLOPS:      map[string]float64{"float64": 67 * tera, "float32": 67 * tera, "tf32": 494.5 * tera, "bfloat16": 989 * tera, "float16": 989 * tera},
			BandwidthBytes: 3.35 * tera,
			Source:         "datasheet: NVIDIA H100 SXM (dense tensor-core figures, HBM3 3.35 TB/s)",
		},
	},
	{
		Model: "NVIDIA H200 SXM", Match: []string{"h200"}, MemoryBytes: 141 << 30,
		Ceilings: Ceilings{
			PeakFLOPS:      map[string]float64{"float64": 67 * tera, "float32": 67 * tera, "tf32": 494.5 * tera, "bfloat16": 989 * tera, "float16": 989 * tera},
			BandwidthBytes: 4.8 * tera,
			Source:         "datasheet: NVIDIA H200 SXM (dense tensor-core figures, HBM3e 4.8 TB/s)",
		},
	},
	{
		// The illustrative server socket of the source text: built from arithmetic, not a product.
		Model: "illustrative 64-core CPU socket", MemoryBytes: 0,
		Ceilings: Ceilings{
			PeakFLOPS:      map[string]float64{"float32": 64 * 2 * 16 * 2 * 2.5 * giga, "float64": 64 * 2 * 8 * 2 * 2.5 * giga},
			BandwidthBytes: 12 * 38.4 * giga,
			Source:         "model: 64 cores × 2.5 GHz × 2 AVX-512 FMA units × 16 f32 lanes × 2; 12 × DDR5-4800 channels",
		},
	},
}

// LookupSpec returns the datasheet row whose Match matches the (driver-reported) model name.
func LookupSpec(model string) (Spec, bool) {
	m := strings.ToLower(model)
	for _, s := range Datasheet {
		for _, sub := range s.Match {
			if strings.Contains(m, sub) {
				return s, true
			}
		}
	}
	return Spec{}, false
}

// SpecByModel returns the datasheet row with exactly this Model name (e.g. "NVIDIA H100 SXM").
func SpecByModel(model string) (Spec, bool) {
	i := slices.IndexFunc(Datasheet, func(s Spec) bool { return s.Model == model })
	if i < 0 {
		return Spec{}, false
	}
	return Datasheet[i], true
}

// CPUFacts are what the CPU ceiling model is built from, read with gopsutil.
type CPUFacts struct {
	ModelName string  // e.g. "Intel(R) Xeon(R) Processor"
	Cores     int     // CPUs this process may use
	MHz       float64 // nominal clock reported by the OS
	Lanes32   int     // f32 lanes per SIMD register: 16 (AVX-512), 8 (AVX2), 4 (SSE)
	FMAUnits  int     // FMA pipes per core assumed by the model
	BF16      bool    // native bf16 dot products (AVX512_BF16 or AMX)
	F16       bool    // native f16 arithmetic (AVX512_FP16)
}

// ReadCPUFacts reads the CPU's model, clock and SIMD flags.
var ReadCPUFacts = sync.OnceValue(func() CPUFacts {
	f := CPUFacts{Cores: runtime.NumCPU(), Lanes32: 4, FMAUnits: 1}
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
			f.FMAUnits = 2
		}
		f.BF16 = has("avx512_bf16") || has("amx_bf16")
		f.F16 = has("avx512_fp16")
	}
	if f.ModelName == "" {
		f.ModelName = runtime.GOARCH + " CPU"
	}
	return f
})

// CPUModel builds a CPU's ceilings from its facts: cores × clock × lanes × FMA units × 2 FLOPs.
// Low-precision entries are only as fast as f32 unless the CPU has native instructions for them
// (without them XLA converts to f32 and back, so they are at best f32 speed).
func CPUModel(f CPUFacts) Ceilings {
	f32 := float64(f.Cores) * f.MHz * 1e6 * float64(f.Lanes32) * float64(f.FMAUnits) * 2
	c := Ceilings{PeakFLOPS: map[string]float64{"float32": f32, "float64": f32 / 2, "bfloat16": f32, "float16": f32}}
	if f.BF16 {
		c.PeakFLOPS["bfloat16"] = 2 * f32
	}
	if f.F16 {
		c.PeakFLOPS["float16"] = 2 * f32
	}
	c.Source = fmt.Sprintf("model: %d cores × %.2f GHz × %d f32 lanes × %d FMA units × 2 FLOPs (nominal clock; no datasheet bandwidth)",
		f.Cores, f.MHz/1000, f.Lanes32, f.FMAUnits)
	return c
}

func describeCPU(d *Device) {
	f := ReadCPUFacts()
	d.Kind = KindCPU
	d.Cores = f.Cores
	d.Model = fmt.Sprintf("%s (%d cores)", f.ModelName, f.Cores)
	d.MemoryBytes = HostMemoryLimit().Total // the container's limit when it has one
	d.Spec = CPUModel(f)
}

// goBackendSpec: the pure-Go backend runs on the same CPU, so the CPU model is its roof too.
func goBackendSpec(c Ceilings) Ceilings {
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

var nvmlOnce sync.Once
var nvmlOK bool

// nvmlInit initializes NVML once; false when the library or a GPU is absent (never a crash).
func nvmlInit() bool {
	nvmlOnce.Do(func() {
		defer func() {
			if recover() != nil {
				nvmlOK = false
			}
		}()
		nvmlOK = nvml.Init() == nvml.SUCCESS
	})
	return nvmlOK
}

// GPUs lists the NVIDIA GPUs NVML sees; empty when there is no GPU or no NVML library.
func GPUs() []GPUInfo { return gpuInfos() }

func gpuInfos() []GPUInfo {
	if !nvmlInit() {
		return nil
	}
	n, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS {
		return nil
	}
	driver, _ := nvml.SystemGetDriverVersion()
	var out []GPUInfo
	for i := 0; i < n; i++ {
		h, ret := nvml.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			continue
		}
		name, _ := h.GetName()
		info := GPUInfo{Index: i, Name: name, Driver: driver}
		if m, ret := h.GetMemoryInfo(); ret == nvml.SUCCESS {
			info.MemoryBytes = m.Total
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
	if s, ok := LookupSpec(g.Name); ok {
		d.Spec = s.Ceilings
	} else {
		d.Spec = Ceilings{PeakFLOPS: map[string]float64{}, Source: "no datasheet entry for " + g.Name}
	}
}
