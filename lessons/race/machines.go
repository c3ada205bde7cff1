package race

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// CPUFacts reads this machine's CPU (model, cores, clock, SIMD) and its model ceilings, raised to
// the float32 ceiling measured here when one beat them (measure.CPUModel).
func CPUFacts() (devices.CPUFacts, datasheet.Ceilings) {
	f := devices.ReadCPUFacts()
	return f, measure.CPUModel(f)
}

// Machines is the latency machine next to the throughput machine: this machine's CPU (from its
// model name, cores, clock and SIMD width, with the model peak those give) next to the datasheet
// GPUs, like with like: a CPU core next to an SM (the GPU's unit that, like a core, has its own
// instruction stream, registers and caches), not next to one CUDA lane.
func Machines() units.Table {
	f, cpu := CPUFacts()
	cpuPeak := cpu.Peak("float32")
	perCore := cpuPeak / float64(max(f.Cores, 1))
	t := units.Table{Origins: []units.Origin{units.Model("each row's last column: a datasheet or the course's CPU model on this CPU's cores and clock")}, Header: []string{"machine", "cores (GPU: SMs)", "clock", "f32 per core (GPU: per SM)", "f32 peak", "16-bit matrix peak", "memory bandwidth", "where the numbers come from"}}
	t.Rows = append(t.Rows, []string{
		"this CPU: " + f.ModelName,
		fmt.Sprintf("%d (each %d f32 SIMD lanes × %d FMA units)", f.Cores, f.Lanes32, f.FMAUnits),
		fmt.Sprintf("%.2f GHz (nominal)", f.MHz/1000),
		units.SI(perCore, "FLOP/s"), units.SI(cpuPeak, "FLOP/s"),
		units.SI(cpu.Peak("bfloat16"), "FLOP/s"), "–", cpu.Source,
	})
	server := datasheet.ServerCPU
	t.Rows = append(t.Rows, []string{
		"the source text's " + server.Model,
		fmt.Sprintf("%d (each %d f32 SIMD lanes × %d FMA units)", server.Cores, server.Lanes32, server.FMAUnits),
		fmt.Sprintf("%.2f GHz", server.GHz),
		units.SI(server.Ceilings.Peak("float32")/float64(server.Cores), "FLOP/s"), units.SI(server.Ceilings.Peak("float32"), "FLOP/s"),
		"–", units.SI(server.Ceilings.BandwidthBytes, "B/s"), server.Ceilings.Source,
	})
	for _, g := range []datasheet.GPU{datasheet.H100, datasheet.H200} {
		c := g.Ceilings
		t.Rows = append(t.Rows, []string{
			g.Model,
			fmt.Sprintf("%d SMs (each %d FP32 lanes + %d tensor cores; %d lanes in all)", g.SMs, g.FP32LanesPerSM, g.TensorCoresPerSM, g.CUDACores()),
			fmt.Sprintf("%.2f GHz (boost)", g.BoostGHz),
			units.SI(c.Peak("float32")/float64(g.SMs), "FLOP/s") + " (TF32 " + units.SI(c.Peak("tf32")/float64(g.SMs), "FLOP/s") + ")",
			units.SI(c.Peak("float32"), "FLOP/s") + " (TF32 " + units.SI(c.Peak("tf32"), "FLOP/s") + ")",
			units.SI(c.Peak("bfloat16"), "FLOP/s"),
			units.SI(c.BandwidthBytes, "B/s"),
			c.Source + "; cores: " + g.Source,
		})
	}
	g := GPU.GPU
	gpu := g.Ceilings
	t.Notes = append(t.Notes,
		fmt.Sprintf("Like with like: one %s SM (%d FP32 lanes × 2 FLOPs × %.2f GHz = %s) does %s× the f32 arithmetic of one of this CPU's cores (%s, model), and %s× with TF32 on its tensor cores. A single CUDA lane is the counterpart of one SIMD lane, not of a core.",
			short(g.Model), g.FP32LanesPerSM, g.BoostGHz, units.SI(g.SMPeakFP32(), "FLOP/s"), units.Plain(units.Round3(g.SMPeakFP32()/perCore)), units.SI(perCore, "FLOP/s"),
			units.Plain(units.Round3(gpu.Peak("tf32")/float64(g.SMs)/perCore))),
		fmt.Sprintf("And the %s has %d SMs to this CPU's %d cores: %s× this CPU's f32 peak, %s× in TF32 on its tensor cores.",
			short(g.Model), g.SMs, f.Cores,
			units.Plain(units.Round3(gpu.Peak("float32")/cpuPeak)), units.Plain(units.Round3(gpu.Peak("tf32")/cpuPeak))),
		fmt.Sprintf("Check: %d cores × 2 FLOPs × %.2f GHz = %s, the datasheet's f32 figure.",
			g.CUDACores(), g.BoostGHz, units.SI(g.BuiltFP32Peak(), "FLOP/s")))
	sp := server.Ceilings.Peak("float32")
	t.Notes = append(t.Notes, fmt.Sprintf("Against a 64-core server socket (the source text's model) the gap is smaller but still there: %s× in f32, %s× in TF32, %s× in BF16 on tensor cores.",
		units.Plain(units.Round3(gpu.Peak("float32")/sp)), units.Plain(units.Round3(gpu.Peak("tf32")/sp)), units.Plain(units.Round3(gpu.Peak("bfloat16")/sp))))
	t.Notes = append(t.Notes, "CPU figures are a model (physical cores × nominal clock × SIMD lanes × FMA pipes of the microarchitecture × 2; raised to a measured ceiling when one beats it, with the reason), GPU figures are NVIDIA's datasheets: ceilings, not measurements.")
	return t
}
