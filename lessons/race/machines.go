package race

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/units"
)

// GPUCores is how a datasheet GPU is built: streaming multiprocessors (SMs), FP32 lanes ("CUDA
// cores") per SM, boost clock, and the most threads an SM keeps in flight.
type GPUCores struct {
	Model        string  // the devices.Datasheet row it belongs to
	SMs          int     // streaming multiprocessors
	FP32PerSM    int     // FP32 CUDA cores per SM
	BoostGHz     float64 // boost clock
	ThreadsPerSM int     // resident threads per SM (the occupancy limit)
	Source       string  // where the figures come from
}

// CUDACores is SMs × FP32PerSM.
func (g GPUCores) CUDACores() int { return g.SMs * g.FP32PerSM }

// ResidentThreads is SMs × ThreadsPerSM: how many threads the GPU keeps in flight at most.
func (g GPUCores) ResidentThreads() int { return g.SMs * g.ThreadsPerSM }

// FP32Peak is CUDA cores × 2 FLOPs (a fused multiply-add) × boost clock, which reproduces the
// datasheet's FP32 figure.
func (g GPUCores) FP32Peak() float64 { return float64(g.CUDACores()) * 2 * g.BoostGHz * 1e9 }

// GPUCoreTable has the datasheet build of the GPUs in devices.Datasheet. Both are the GH100 chip in
// its SXM configuration.
var GPUCoreTable = []GPUCores{
	{Model: "NVIDIA H100 SXM", SMs: 132, FP32PerSM: 128, BoostGHz: 1.98, ThreadsPerSM: 2048,
		Source: "datasheet: NVIDIA H100 Tensor Core GPU Architecture whitepaper (H100 SXM5: 132 SMs × 128 FP32 cores, 1.98 GHz boost, 2048 threads per SM)"},
	{Model: "NVIDIA H200 SXM", SMs: 132, FP32PerSM: 128, BoostGHz: 1.98, ThreadsPerSM: 2048,
		Source: "datasheet: NVIDIA H200 SXM (the H100 SXM5's GH100 configuration with HBM3e: 132 SMs × 128 FP32 cores, 1.98 GHz boost)"},
}

// CoresOf returns the core build of a datasheet GPU.
func CoresOf(model string) (GPUCores, bool) {
	for _, g := range GPUCoreTable {
		if g.Model == model {
			return g, true
		}
	}
	return GPUCores{}, false
}

// ServerCPU is the source text's illustrative server socket (devices.Datasheet's "illustrative
// 64-core CPU socket"): a model built from arithmetic, not a product.
var ServerCPU = struct {
	Model                    string
	Cores, Lanes32, FMAUnits int
	GHz                      float64
}{Model: "illustrative 64-core CPU socket", Cores: 64, Lanes32: 16, FMAUnits: 2, GHz: 2.5}

// CPUFacts reads this machine's CPU (model, cores, clock, SIMD) and its model ceilings.
func CPUFacts() (devices.CPUFacts, devices.Ceilings) {
	f := devices.ReadCPUFacts()
	return f, devices.CPUModel(f)
}

// Machines is the latency machine next to the throughput machine: this machine's CPU (from its
// model name, cores, clock and SIMD width, with the model peak those give) next to the datasheet
// GPUs, like with like: a CPU core next to an SM (the GPU's unit that, like a core, has its own
// instruction stream, registers and caches), not next to one CUDA lane.
func Machines() units.Table {
	f, cpu := CPUFacts()
	cpuPeak := cpu.Peak("float32")
	perCore := cpuPeak / float64(max(f.Cores, 1))
	t := units.Table{Header: []string{"machine", "cores (GPU: SMs)", "clock", "f32 per core (GPU: per SM)", "f32 peak", "16-bit matrix peak", "memory bandwidth", "where the numbers come from"}}
	t.Rows = append(t.Rows, []string{
		"this CPU: " + f.ModelName,
		fmt.Sprintf("%d (each %d f32 SIMD lanes × %d FMA units)", f.Cores, f.Lanes32, f.FMAUnits),
		fmt.Sprintf("%.2f GHz (nominal)", f.MHz/1000),
		units.SI(perCore, "FLOP/s"), units.SI(cpuPeak, "FLOP/s"),
		units.SI(cpu.Peak("bfloat16"), "FLOP/s"), "–", cpu.Source,
	})
	server, hasServer := devices.SpecByModel(ServerCPU.Model)
	if hasServer {
		c := server.Ceilings
		t.Rows = append(t.Rows, []string{
			"the source text's " + ServerCPU.Model,
			fmt.Sprintf("%d (each %d f32 SIMD lanes × %d FMA units)", ServerCPU.Cores, ServerCPU.Lanes32, ServerCPU.FMAUnits),
			fmt.Sprintf("%.2f GHz", ServerCPU.GHz),
			units.SI(c.Peak("float32")/float64(ServerCPU.Cores), "FLOP/s"), units.SI(c.Peak("float32"), "FLOP/s"),
			"–", units.SI(c.BandwidthBytes, "B/s"), c.Source,
		})
	}
	for _, g := range GPUCoreTable {
		spec, ok := devices.SpecByModel(g.Model)
		if !ok {
			continue
		}
		c := spec.Ceilings
		t.Rows = append(t.Rows, []string{
			g.Model,
			fmt.Sprintf("%d SMs (each %d FP32 lanes + 4 tensor cores; %d lanes in all)", g.SMs, g.FP32PerSM, g.CUDACores()),
			fmt.Sprintf("%.2f GHz (boost)", g.BoostGHz),
			units.SI(c.Peak("float32")/float64(g.SMs), "FLOP/s") + " (TF32 " + units.SI(c.Peak("tf32")/float64(g.SMs), "FLOP/s") + ")",
			units.SI(c.Peak("float32"), "FLOP/s") + " (TF32 " + units.SI(c.Peak("tf32"), "FLOP/s") + ")",
			units.SI(c.Peak("bfloat16"), "FLOP/s"),
			units.SI(c.BandwidthBytes, "B/s"),
			c.Source + "; cores: " + g.Source,
		})
	}
	if g, ok := CoresOf(ModelGPU); ok {
		gpu := ModelSpec().Ceilings
		t.Notes = append(t.Notes,
			fmt.Sprintf("Like with like: one %s SM (%d FP32 lanes × 2 FLOPs × %.2f GHz = %s) does %s× the f32 arithmetic of one of this CPU's cores (%s, model), and %s× with TF32 on its tensor cores. A single CUDA lane is the counterpart of one SIMD lane, not of a core.",
				short(g.Model), g.FP32PerSM, g.BoostGHz, units.SI(GPU.GPU.SMPeakFP32(), "FLOP/s"), units.Plain(units.Round3(GPU.GPU.SMPeakFP32()/perCore)), units.SI(perCore, "FLOP/s"),
				units.Plain(units.Round3(gpu.Peak("tf32")/float64(g.SMs)/perCore))),
			fmt.Sprintf("And the %s has %d SMs to this CPU's %d cores: %s× this CPU's f32 peak, %s× in TF32 on its tensor cores.",
				short(g.Model), g.SMs, f.Cores,
				units.Plain(units.Round3(gpu.Peak("float32")/cpuPeak)), units.Plain(units.Round3(gpu.Peak("tf32")/cpuPeak))),
			fmt.Sprintf("Check: %d cores × 2 FLOPs × %.2f GHz = %s, the datasheet's f32 figure.",
				g.CUDACores(), g.BoostGHz, units.SI(g.FP32Peak(), "FLOP/s")))
		if hasServer {
			sp := server.Ceilings.Peak("float32")
			t.Notes = append(t.Notes, fmt.Sprintf("Against a 64-core server socket (the source text's model) the gap is smaller but still there: %s× in f32, %s× in TF32, %s× in BF16 on tensor cores.",
				units.Plain(units.Round3(gpu.Peak("float32")/sp)), units.Plain(units.Round3(gpu.Peak("tf32")/sp)), units.Plain(units.Round3(gpu.Peak("bfloat16")/sp))))
		}
	}
	t.Notes = append(t.Notes, "CPU figures are a model (physical cores × nominal clock × SIMD lanes × FMA pipes of the microarchitecture × 2; raised to a measured ceiling when one beats it, with the reason), GPU figures are NVIDIA's datasheets: ceilings, not measurements.")
	return t
}
