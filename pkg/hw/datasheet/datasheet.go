package datasheet

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Ceilings are the roofs a device cannot exceed: peak FLOP/s per dtype and main-memory bandwidth.
//
// Peak FLOP/s are keyed by dtype name as GoMLX spells it ("float64", "float32", "bfloat16",
// "float16") plus "tf32" for float32 matmuls on tensor cores. A zero or missing entry means unknown.
type Ceilings struct {
	PeakFLOPS      map[string]float64 `json:"peak_flops"`                      // FLOP/s by dtype name, "tf32" or "fp8" (Hopper's 8-bit floats)
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

// GPU is one datasheet GPU: its build, its roofs, its memory and its links.
type GPU struct {
	Model string   // marketing name, e.g. "NVIDIA H200 SXM"
	Short string   // for legends: "H200"
	Match []string // lower-case substrings of the name the driver reports (nvidia-smi, NVML)

	SMs              int     // streaming multiprocessors
	BoostGHz         float64 // boost clock
	FP32LanesPerSM   int     // FP32 CUDA-core lanes per SM ("CUDA cores")
	TensorCoresPerSM int     // tensor cores per SM
	ThreadsPerSM     int     // resident threads per SM (the occupancy limit)
	// Source says where the build (SMs … ThreadsPerSM) comes from; Ceilings.Source says where the
	// roofs come from.
	Source string

	MemoryBytes uint64   // device memory
	Ceilings    Ceilings // dense peaks per dtype and HBM bandwidth
	// FP64Vector is float64 FLOP/s on the CUDA cores, for work that is not a matrix product;
	// Ceilings' "float64" is a matrix product's (DGEMM on the FP64 tensor cores since the A100).
	FP64Vector float64

	PCIe        string  // host link: "PCIe Gen5 x16"
	PCIeBytes   float64 // nominal bytes/s per direction of that link
	NVLink      string  // GPU-to-GPU link: "NVLink 4"
	NVLinkBytes float64 // nominal bytes/s one GPU sends (and receives) at once, per direction
}

const (
	tera = 1e12
	giga = 1e9
)

// The datasheet GPUs. Dense (no structured sparsity) tensor-core figures; the headline numbers
// NVIDIA prints with sparsity are twice these. The H100 and H200 are the same GH100 chip in its SXM5
// configuration; the H200 has more and faster memory.
var (
	// H100 is the GPU the source text quotes.
	H100 = GPU{
		Model: "NVIDIA H100 SXM", Short: "H100", Match: []string{"h100"},
		SMs: 132, BoostGHz: 1.98, FP32LanesPerSM: 128, TensorCoresPerSM: 4, ThreadsPerSM: 2048,
		Source:      "datasheet: NVIDIA H100 Tensor Core GPU Architecture whitepaper (H100 SXM5: 132 SMs × 128 FP32 cores, 1.98 GHz boost, 2048 threads per SM)",
		MemoryBytes: 80 << 30,
		Ceilings: Ceilings{
			PeakFLOPS:      map[string]float64{"float64": 67 * tera, "float32": 67 * tera, "tf32": 494.5 * tera, "bfloat16": 989 * tera, "float16": 989 * tera, "fp8": 1979 * tera},
			BandwidthBytes: 3.35 * tera,
			Source:         "datasheet: NVIDIA H100 SXM (dense tensor-core figures; FP64 67 TFLOP/s on the tensor cores, 34 on the CUDA cores; HBM3 3.35 TB/s)",
		},
		FP64Vector: 34 * tera,
		// Datasheet: PCIe Gen5 128 GB/s (both directions); NVLink 900 GB/s (both directions).
		PCIe: "PCIe Gen5 x16", PCIeBytes: 64e9,
		NVLink: "NVLink 4", NVLinkBytes: 450e9,
	}
	// H200 is the GPU the course records on: the H100's build and peaks with HBM3e (141 GB at
	// 4.8 TB/s).
	H200 = withSource(withMemory(H100, "NVIDIA H200 SXM", "H200", []string{"h200"}, 141<<30, 4.8*tera,
		"datasheet: NVIDIA H200 SXM (dense tensor-core figures; FP64 67 TFLOP/s on the tensor cores, 34 on the CUDA cores; HBM3e 4.8 TB/s)"),
		"datasheet: NVIDIA H200 SXM (the H100 SXM5's GH100 configuration with HBM3e: 132 SMs × 128 FP32 cores, 1.98 GHz boost)")
	// A100 is the GPU before Hopper, for the model card's A100 measurements.
	A100 = GPU{
		Model: "NVIDIA A100 SXM", Short: "A100", Match: []string{"a100"},
		SMs: 108, BoostGHz: 1.41, FP32LanesPerSM: 64, TensorCoresPerSM: 4, ThreadsPerSM: 2048,
		Source:      "datasheet: NVIDIA A100 Tensor Core GPU Architecture whitepaper (A100: 108 SMs × 64 FP32 cores, 1.41 GHz boost, 2048 threads per SM)",
		MemoryBytes: 80 << 30,
		Ceilings: Ceilings{
			PeakFLOPS:      map[string]float64{"float64": 19.5 * tera, "float32": 19.5 * tera, "tf32": 156 * tera, "bfloat16": 312 * tera, "float16": 312 * tera},
			BandwidthBytes: 2.0 * tera,
			Source:         "datasheet: NVIDIA A100 SXM 80GB (dense tensor-core figures; FP64 19.5 TFLOP/s on the tensor cores, 9.7 on the CUDA cores; HBM2e 2.0 TB/s)",
		},
		FP64Vector: 9.7 * tera,
		// Datasheet: PCIe Gen4 64 GB/s (both directions); NVLink 600 GB/s (both directions).
		PCIe: "PCIe Gen4 x16", PCIeBytes: 32e9,
		NVLink: "NVLink 3", NVLinkBytes: 300e9,
	}
	// A100x40 is the 40 GB A100: the A100's build and peaks with HBM2 at 1555 GB/s (the model card's
	// measured copy ran on one).
	A100x40 = withMemory(A100, "NVIDIA A100 40GB", "A100 40GB", []string{"a100-sxm4-40gb", "a100-pcie-40gb"}, 40<<30, 1555*giga,
		"datasheet: NVIDIA A100 40GB (the A100 80GB's peaks; HBM2 1555 GB/s)")
)

// GPUs is the table: every datasheet GPU, a more specific Match before a general one.
var GPUs = []GPU{H100, H200, A100x40, A100}

// withMemory is g with another memory: its names, size, bandwidth and their source.
func withMemory(g GPU, model, short string, match []string, bytes uint64, bandwidth float64, source string) GPU {
	g.Model, g.Short, g.Match, g.MemoryBytes = model, short, match, bytes
	g.Ceilings.BandwidthBytes, g.Ceilings.Source = bandwidth, source
	return g
}

// withSource is g with another source for its build (SMs, clock, lanes).
func withSource(g GPU, source string) GPU {
	g.Source = source
	return g
}

// Lookup returns the row of a GPU by its Model ("NVIDIA H200 SXM") or Short ("H200") name, else the
// first row whose Match is part of name (the name a driver reports: "NVIDIA H100 80GB HBM3"), or an
// error that names the rows there are.
func Lookup(name string) (GPU, error) {
	if i := slices.IndexFunc(GPUs, func(g GPU) bool { return g.Model == name || g.Short == name }); i >= 0 {
		return GPUs[i], nil
	}
	lower := strings.ToLower(name)
	for _, g := range GPUs {
		if slices.ContainsFunc(g.Match, func(sub string) bool { return strings.Contains(lower, sub) }) {
			return g, nil
		}
	}
	have := make([]string, len(GPUs))
	for i, g := range GPUs {
		have[i] = strconv.Quote(g.Model)
	}
	return GPU{}, fmt.Errorf("datasheet: no GPU row %q (the rows are %s)", name, strings.Join(have, ", "))
}

// Peak is the datasheet's dense peak for a precision ("tf32", "float32", "bfloat16", …).
func (g GPU) Peak(precision string) float64 { return g.Ceilings.Peak(precision) }

// Bandwidth is the datasheet's HBM bandwidth in bytes/s.
func (g GPU) Bandwidth() float64 { return g.Ceilings.BandwidthBytes }

// CUDACores is SMs × FP32LanesPerSM: the FP32 lanes of the whole GPU.
func (g GPU) CUDACores() int { return g.SMs * g.FP32LanesPerSM }

// ResidentThreads is SMs × ThreadsPerSM: how many threads the GPU keeps in flight at most.
func (g GPU) ResidentThreads() int { return g.SMs * g.ThreadsPerSM }

// SMPeakFP32 is one SM's FP32 CUDA-core peak: lanes × 2 FLOPs (a fused multiply-add) × clock;
// 128 × 2 × 1.98 GHz ≈ 507 GFLOP/s on Hopper. The SM, not a CUDA lane, is the counterpart of a CPU
// core.
func (g GPU) SMPeakFP32() float64 { return float64(g.FP32LanesPerSM) * 2 * g.BoostGHz * 1e9 }

// BuiltFP32Peak is the FP32 peak the build gives, CUDA cores × 2 FLOPs × boost clock, which
// reproduces the datasheet's FP32 figure (the package's tests check it).
func (g GPU) BuiltFP32Peak() float64 { return float64(g.SMs) * g.SMPeakFP32() }

// CPU is a CPU socket built from arithmetic: cores × clock × SIMD lanes × FMA units, and memory
// channels.
type CPU struct {
	Model        string
	Cores        int     // physical cores
	GHz          float64 // clock
	Lanes32      int     // f32 lanes per SIMD register: 16 (AVX-512)
	FMAUnits     int     // full-width FMA issues per cycle per core
	Channels     int     // memory channels
	ChannelBytes float64 // bytes/s per channel
	Ceilings     Ceilings
}

// ServerCPU is the source text's illustrative server socket: 64 cores at 2.5 GHz with two AVX-512
// FMA units each and 12 DDR5-4800 channels — a model built from arithmetic, not a product.
var ServerCPU = cpuSocket(CPU{Model: "illustrative 64-core CPU socket", Cores: 64, GHz: 2.5, Lanes32: 16, FMAUnits: 2,
	Channels: 12, ChannelBytes: 38.4 * giga})

// cpuSocket fills c's Ceilings from its build: cores × clock × FMA units × lanes × 2 FLOPs (f64: half
// the lanes), channels × bytes per channel.
func cpuSocket(c CPU) CPU {
	f32 := float64(c.Cores*c.FMAUnits*c.Lanes32*2) * c.GHz * giga
	c.Ceilings = Ceilings{
		PeakFLOPS:      map[string]float64{"float32": f32, "float64": f32 / 2},
		BandwidthBytes: float64(c.Channels) * c.ChannelBytes,
		Source: fmt.Sprintf("model: %d cores × %g GHz × %d AVX-512 FMA units × %d f32 lanes × 2; %d × DDR5-4800 channels",
			c.Cores, c.GHz, c.FMAUnits, c.Lanes32, c.Channels),
	}
	return c
}
