package gpumodel

import (
	"fmt"
	"strings"

	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// StepKernelsAssumed is the kernel count assumed for one training step of w when none was counted:
// per weight matrix a forward product, a fused bias + activation, a weight-gradient product, an
// input-gradient product (not for the first layer), a bias-gradient reduction and a fused update;
// plus one for the loss: 6 per layer.
func StepKernelsAssumed(w workloads.MLP) int { return 6 * (w.Depth + 1) }

// StepGEMMs are the matrix products of one training step of w: per layer i (widths dᵢ → dᵢ₊₁) the
// forward product B×dᵢ₊₁ over dᵢ, the weight gradient dᵢ×dᵢ₊₁ over B and, except for the first
// layer, the input gradient B×dᵢ over dᵢ₊₁.
func StepGEMMs(w workloads.MLP) []GEMM {
	d := w.Dims()
	var g []GEMM
	for i := 0; i+1 < len(d); i++ {
		g = append(g, GEMM{M: w.Batch, N: d[i+1], K: d[i]}, GEMM{M: d[i], N: d[i+1], K: w.Batch})
		if i > 0 {
			g = append(g, GEMM{M: w.Batch, N: d[i], K: d[i+1]})
		}
	}
	return g
}

// MLPStep is the Work of one training step of the MLP w. kernels is the kernel count of the compiled step
// with where it comes from (e.g. 25, "counted on xla:cpu": StepWork counts it);
// kernels ≤ 0 falls back to StepKernelsAssumed, and from then says why there is no count (the
// label reads "assumed: 6 per layer …; <from>").
func MLPStep(w workloads.MLP, kernels int, from string) Work {
	if kernels <= 0 {
		why := from
		kernels, from = StepKernelsAssumed(w), "assumed: 6 per layer as XLA fuses a step"
		if why != "" {
			from += "; " + why
		}
	}
	return Work{What: w.String(), FLOPs: w.FLOPs(), Bytes: w.Bytes(), Precision: PrecisionFor(strings.ToLower(w.Type.String())),
		GEMMs: StepGEMMs(w), Kernels: kernels, KernelsFrom: from}
}

// MatMul is the Work of one n×k by k×m product of dtype as a single kernel.
func MatMul(m, n, k int, dtype string, bytes float64) Work {
	g := GEMM{M: m, N: n, K: k}
	return Work{What: fmt.Sprintf("%d×%d×%d %s matmul", m, n, k, dtype), FLOPs: g.FLOPs(), Bytes: bytes,
		Precision: PrecisionFor(dtype), GEMMs: []GEMM{g}, Kernels: 1, KernelsFrom: "one GEMM kernel"}
}

// EstimateMatMul is the default model's band for one matrix product w as one kernel.
func EstimateMatMul(w workloads.MatMul) Estimate {
	return Default().Estimate(MatMul(w.M, w.N, w.K, strings.ToLower(w.Type.String()), w.Bytes()))
}

// GPTStepKernelsAssumed is the kernels one GPT training step is assumed to launch when none were
// counted: about 40 per layer (forward, backward and their fusions) plus 30 for the embedding,
// output layer, loss and Adam's update.
func GPTStepKernelsAssumed(c gpt.GPT) int { return 40*c.Layers + 30 }

// GPTStep is the Work of one training step of c (float32, so TF32 products): its forward matrix
// products and, for each, the two backward ones (the gradients w.r.t. both operands). Products that
// run as a batch (the same shape for every layer, sequence or head) are stacked into one GEMM with
// their rows added up, as a batched GEMM fills the GPU together.
//
// kernels is the kernel count of the compiled step with where it comes from (e.g. 345, "counted on
// xla:cpu": GPTStepWork counts it); kernels ≤ 0 falls back to GPTStepKernelsAssumed,
// and from then says why there is no count (the label reads "assumed: 40 per layer + 30; <from>").
func GPTStep(c gpt.GPT, kernels int, from string) Work {
	if kernels <= 0 {
		why := from
		kernels, from = GPTStepKernelsAssumed(c), "assumed: 40 per layer + 30"
		if why != "" {
			from += "; " + why
		}
	}
	var gemms []GEMM
	for _, m := range c.ForwardMatMuls() {
		rows := m.M * m.Count
		gemms = append(gemms, GEMM{M: rows, N: m.N, K: m.K}, GEMM{M: rows, N: m.K, K: m.N}, GEMM{M: m.K, N: m.N, K: rows})
	}
	return Work{What: c.String() + " train step", FLOPs: c.FLOPs(), Bytes: c.Bytes(), Precision: "tf32", GEMMs: gemms,
		Kernels: kernels, KernelsFrom: from}
}
