package race

import (
	"fmt"
	"strings"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The GPU lane, until a recording exists, is the course's one GPU model (package gpumodel): the H200
// SXM the course records on, drawn as a band from an optimistic to a pessimistic end with its
// assumptions beside it. This file only adapts it to the race's lanes, series and tables.

// GPU is the model the race uses: gpumodel.Default().
var GPU = gpumodel.Default()

// ModelPrecision is the arithmetic the model assumes for float32 matrix products: TF32.
const ModelPrecision = workloads.TF32

// short drops the vendor: "NVIDIA H200 SXM" → "H200 SXM".
func short(model string) string { return strings.TrimPrefix(model, "NVIDIA ") }

// ModelBrief is the race's GPU model in one sentence, printed from its assumptions (so prose never
// quotes numbers the model no longer uses).
func ModelBrief() string {
	return fmt.Sprintf("The GPU model (%s, %s; a model, not a measurement): %s.", "pkg/model/gpumodel", short(GPU.GPU.Model), GPU.Brief(ModelPrecision))
}

// ModelTable explains the model at one size: its assumptions and its parts at both ends of the band.
func ModelTable(batch, hidden int) units.Table {
	w := experiments.CourseMLP(batch, hidden)
	e := gpumodel.StepEstimate(w)
	t := units.Table{Origins: []units.Origin{units.Model(e.Note())}, Header: []string{"part of the model", "optimistic end", "pessimistic end", "where it comes from"}}
	add := func(a, lo, hi, c string) { t.Rows = append(t.Rows, []string{a, lo, hi, c}) }
	d := units.Duration
	add("work", w.String(), w.String(), "the race's step")
	add("FLOPs per step", fmt.Sprintf("%.3g", e.Work.FLOPs), fmt.Sprintf("%.3g", e.Work.FLOPs), "formula: 3 × 2·B·Σ dᵢ·dᵢ₊₁ (workloads.MLP.FLOPs)")
	add("bytes per step (at least)", units.Bytes(e.Work.Bytes), units.Bytes(e.Work.Bytes), "formula (workloads.MLP.Bytes)")
	add("largest product: output tiles / SMs busy", fmt.Sprintf("%d tiles, %.0f%% of %d SMs", e.Tiles, 100*e.Fill, GPU.GPU.SMs), fmt.Sprintf("%d wave(s)", e.Waves), "tile/wave quantization (gpumodel)")
	add("kernels per step", fmt.Sprint(e.Work.Kernels), fmt.Sprint(e.Work.Kernels), e.Work.KernelsFrom)
	add("compute (tiles × waves at a fraction of peak)", d(e.Compute[0]), d(e.Compute[1]), "model")
	add("memory (bytes / bandwidth)", d(e.Memory[0]), d(e.Memory[1]), "model")
	add("GPU busy (kernels on a stream)", d(e.Device[0]), d(e.Device[1]), "model: each kernel at least its floor")
	add("host issuing the launches", d(e.Launch[0]), d(e.Launch[1]), "overlaps the GPU's work, not added to it")
	add("step", d(e.Low.Seconds()), d(e.High.Seconds()), e.Label())
	t.Notes = append([]string{fmt.Sprintf("At batch %d × hidden %d the model is %s: a band from %s to %s, not a measurement. Its assumptions:",
		batch, hidden, e.Bound, d(e.Low.Seconds()), d(e.High.Seconds()))}, e.Assumptions()...)
	if a := gpumodel.StepKernelsAssumed(w); strings.HasPrefix(e.Work.KernelsFrom, hlo.CountedOn) {
		t.Notes = append(t.Notes, fmt.Sprintf("Kernels: %d per step, %s (XLA's optimized HLO of this step, fusions and library calls counted), where a hand count of 6 per layer would assume %d. A GPU compile fuses differently, so even the count is a model input, not the GPU's own.",
			e.Work.Kernels, e.Work.KernelsFrom, a))
	}
	t.Notes = append(t.Notes, gpumodel.ChangeLine("step"))
	return t
}
