package race

import (
	"fmt"
	"strings"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Layer is a dense layer's shape: a batch of B inputs of width D, H outputs.
type Layer struct{ B, D, H int }

// Layers are the shapes of the FLOP table.
var Layers = []Layer{{1, 512, 512}, {32, 512, 512}, {512, 512, 512}, {512, 4096, 4096}}

// Forward is the layer's forward product as a workload: (B×D) @ (D×H).
func (l Layer) Forward() workloads.MatMul {
	return workloads.MatMul{M: l.B, K: l.D, N: l.H, Type: dtypes.Float32}
}

// Training is one training step of the layer alone: a linear model D → H (MLP with Depth 0).
func (l Layer) Training() workloads.MLP {
	return workloads.MLP{Batch: l.B, In: l.D, Out: l.H, Depth: 0, Type: dtypes.Float32}
}

// DotProducts is the number of independent dot products in the forward pass: one per output, B·H,
// each of length D.
func (l Layer) DotProducts() int { return l.B * l.H }

// FLOPTable counts the arithmetic of a dense layer from the workloads' formulas: forward 2·B·D·H
// (workloads.MatMul.FLOPs), forward + backward ≈ 3× that (workloads.MLP.FLOPs), and how long that
// arithmetic alone would take at this CPU's model peak and at the datasheet GPU's TF32 peak.
func FLOPTable() units.Table {
	_, cpu := CPUFacts()
	cpuPeak := cpu.Peak("float32")
	gpu := GPU.GPU.Ceilings
	gpuPeak := gpu.Peak(ModelPrecision)
	t := units.Table{Origins: []units.Origin{units.Formula("2·B·D·H per forward pass, ≈ 3× for a training step"), units.Model(cpu.Source), units.Model(gpu.Source), units.Model("the whole step's band: pkg/model/gpumodel, kernel by kernel")}, Header: []string{"B", "D", "H", "independent dot products (B·H, each of length D)",
		"forward FLOPs (2·B·D·H)", "forward + backward (≈ 3×)", "arithmetic alone at this CPU's f32 peak", "arithmetic alone at the " + short(GPU.GPU.Model) + "'s " + strings.ToUpper(ModelPrecision) + " peak (datasheet)",
		"whole training step on the " + short(GPU.GPU.Model) + " (GPU model band, not a measurement)", "source"}}
	for _, l := range Layers {
		fwd := l.Forward().FLOPs()
		train := l.Training().FLOPs()
		t.Rows = append(t.Rows, []string{
			fmt.Sprint(l.B), fmt.Sprint(l.D), fmt.Sprint(l.H),
			fmt.Sprintf("%d × %d", l.DotProducts(), l.D),
			fmt.Sprintf("%.2e", fwd), fmt.Sprintf("%.2e", train),
			units.Duration(train / cpuPeak), units.Duration(train / gpuPeak), gpumodel.StepEstimateOn(GPU, l.Training()).Band(),
			"formula",
		})
	}
	issue := gpumodel.Published.Issue
	breakEven := gpuPeak * issue.Low
	smaller := 0
	for _, l := range Layers {
		if l.Training().FLOPs() < breakEven {
			smaller++
		}
	}
	t.Notes = []string{
		fmt.Sprintf("Every count is a formula (workloads.MatMul.FLOPs, workloads.MLP.FLOPs), not a measurement; the two “arithmetic alone” columns divide it by a peak (the CPU's model peak, the GPU's datasheet peak): what the FLOPs would cost if nothing else did; the last column is the course's GPU model of the layer's whole training step (a band: its kernels each a roofline, launched on a stream, output tiles on %d SMs, a fraction of the TF32 peak; not a measurement) — the gap between the two GPU columns is the fixed cost per kernel and per execution.", GPU.GPU.SMs),
		fmt.Sprintf("Issuing one GPU kernel costs %s–%s (the GPU model's range, from published measurements; a model, not a measurement): at %s the %s could do %.2g FLOPs in even the short end of it, more than the whole training step of %d of these %d layers.",
			units.Duration(issue.Low), units.Duration(issue.High), units.SI(gpuPeak, "FLOP/s"), short(GPU.GPU.Model), breakEven, smaller, len(Layers)),
		"GPU column: " + gpumodel.StepEstimateOn(GPU, Layers[0].Training()).Note() + ".",
	}
	return t
}
