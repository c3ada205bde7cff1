package gpumodel

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
	"github.com/gpu-course/whygpu/pkg/workloads/train"
)

// CountBatchLimit is the largest batch whose step is compiled and run to count its kernels: the
// count stops changing with the batch well below it (XLA fuses the same way once a batch is more
// than a few dozen rows), and a larger step would cost memory and seconds. A larger batch uses the
// count of the same widths at this batch, and its label says so.
const CountBatchLimit = 4096

// StepKernels is the kernel count of one training step of w: XLA's optimized HLO of the step
// compiled on xla:cpu, counted by package hlo (fusions, library calls such as dots, and other
// kernels), with where it comes from ("counted on xla:cpu", or "counted on xla:cpu at batch 4096,
// same widths" beyond CountBatchLimit). The kernels are kept per shape and plugin, in this process
// and on disk (hlo.CompiledKernels), so a slider that returns to a shape answers at once. When the
// count is unavailable (no CPU plugin, a failed compile) it returns 0 and the reason, and the model
// falls back to StepKernelsAssumed, saying so.
func StepKernels(w workloads.MLP) (int, string) {
	seq, from, _ := stepSequence(w)
	return len(seq), from
}

// stepSequence is StepKernels with the kernels themselves (hlo.KernelsOf, as the GPU model
// reads them); exact says whether they are w's own (false beyond CountBatchLimit: the count of the
// same widths at the limit, whose shapes are not w's).
func stepSequence(w workloads.MLP) (seq []Kernel, from string, exact bool) {
	at := w
	from, exact = hlo.CountedOn, true
	if w.Batch > CountBatchLimit {
		at.Batch = CountBatchLimit
		from, exact = fmt.Sprintf("%s at batch %d, same widths", hlo.CountedOn, CountBatchLimit), false
	}
	ks, err := hlo.CompiledKernels(at.String(), func(dev *devices.Device) (string, error) { return stepHLO(dev, at) })
	if err != nil {
		return nil, "no count from xla:cpu: " + err.Error(), false
	}
	return FromHLO(ks), from, exact
}

// FromHLO is compiled kernels (hlo.KernelsOf) as the model reads them: each with its FLOPs, bytes,
// class and matrix products (a Dot is a GEMM, its batch kept). Package hlo reads programs and knows
// nothing of the model; the model converts what it reads.
func FromHLO(ks []hlo.Kernel) []Kernel {
	out := make([]Kernel, len(ks))
	for i, k := range ks {
		g := make([]GEMM, len(k.Dots))
		for j, d := range k.Dots {
			g[j] = GEMM{M: d.M, N: d.N, K: d.K, Batch: d.Batch}
		}
		out[i] = Kernel{Name: k.Name, Class: k.Class, FLOPs: k.FLOPs, Bytes: k.Bytes, GEMMs: g}
	}
	return out
}

// stepHLO compiles one training step of w on dev (an XLA device), runs it once on fresh
// parameters, and returns XLA's optimized HLO.
func stepHLO(dev *devices.Device, w workloads.MLP) (string, error) {
	tr, err := w.NewTrainer(dev)
	if err != nil {
		return "", err
	}
	defer tr.Close()
	g, err := tr.TrialStep(hlo.DumpName("step"))
	if err != nil {
		return "", err
	}
	r, err := hlo.Of(g)
	return r.HLO, err
}

// CountKernels compiles one training step of w on dev (an XLA device) and counts the kernels in
// XLA's optimized HLO (package hlo). It runs the step once, on fresh parameters.
func CountKernels(dev *devices.Device, w workloads.MLP) (hlo.Kernels, error) {
	return countHLO(stepHLO(dev, w))
}

func countHLO(text string, err error) (hlo.Kernels, error) {
	if err != nil {
		return hlo.Kernels{}, err
	}
	k, err := hlo.CountKernels(text)
	if err == nil && k.Total <= 0 {
		err = fmt.Errorf("hlo: no kernels counted in the optimized HLO")
	}
	return k, err
}

// StepWork is the GPU model's description of one training step of w: its kernels as xla:cpu
// compiled them (Work.Sequence, SequenceAssumption), or past CountBatchLimit the count at
// the limit with kernels built from the formula's GEMMs, or, when nothing could be compiled,
// StepKernelsAssumed, labeled as assumed.
func StepWork(w workloads.MLP) Work {
	seq, from, exact := stepSequence(w)
	work := MLPStep(w, len(seq), from)
	if exact {
		work.Sequence = seq
	}
	return work
}

// StepEstimate is the course's GPU model (Default, the H200) of one training step of w,
// kernel by kernel as xla:cpu compiled it: how every lesson models a step.
func StepEstimate(w workloads.MLP) Estimate { return StepEstimateOn(Default(), w) }

// StepEstimateOn is StepEstimate on another model (the source's H100).
func StepEstimateOn(m Model, w workloads.MLP) Estimate {
	return m.Estimate(StepWork(w))
}

// GPTStepKernels is StepKernels for one training step of the GPT c: the step GoMLX's trainer runs
// (model, cross-entropy, Adam), compiled on xla:cpu but not run (train.CompileGPTStep), so any
// size counts on a laptop; its XLA compile takes a few seconds, once per shape and plugin (kept in
// this process and on disk). When no count is available it returns 0 and the reason, and the model
// falls back to GPTStepKernelsAssumed, saying so.
func GPTStepKernels(c gpt.GPT) (int, string) {
	seq, from := gptSequence(c)
	return len(seq), from
}

func gptSequence(c gpt.GPT) ([]Kernel, string) {
	ks, err := hlo.CompiledKernels(fmt.Sprintf("%s ffn=%d", c, c.FFNWidth()), func(dev *devices.Device) (string, error) {
		return gptHLO(dev, c)
	})
	if err != nil {
		return nil, "no count from xla:cpu: " + err.Error()
	}
	return FromHLO(ks), hlo.CountedOn
}

// gptHLO compiles one training step of c on dev (an XLA device), without running it, and returns
// XLA's optimized HLO.
func gptHLO(dev *devices.Device, c gpt.GPT) (string, error) {
	g, done, err := train.CompileGPTStep(dev, c, hlo.DumpName("gpt_step"))
	if err != nil {
		return "", err
	}
	defer done()
	r, err := hlo.Of(g)
	return r.HLO, err
}

// CountGPTKernels compiles one training step of c on dev (an XLA device), without running it, and
// counts the kernels in XLA's optimized HLO (package hlo).
func CountGPTKernels(dev *devices.Device, c gpt.GPT) (hlo.Kernels, error) {
	return countHLO(gptHLO(dev, c))
}

// GPTStepWork is the GPU model's description of one training step of c: its kernels as xla:cpu
// compiled them (SequenceAssumption), or GPTStepKernelsAssumed, labeled as
// assumed, when none could be compiled.
//
// Without a compiled program the kernels are built layer by layer from the Float32XLA recipe
// (GPTRecipeStep: every norm, softmax and elementwise kernel with its own bytes), labeled so.
func GPTStepWork(c gpt.GPT) Work {
	seq, from := gptSequence(c)
	if len(seq) == 0 {
		w := GPTRecipeStep(c, Float32XLA, 0, true)
		w.KernelsFrom = "assumed: " + from + "; " + w.KernelsFrom
		return w
	}
	work := GPTStep(c, len(seq), from)
	work.Sequence = seq
	return work
}

// GPTStepEstimate is the course's GPU model (Default, the H200) of one training step of c,
// kernel by kernel as xla:cpu compiled it: how a lesson models a GPT step.
func GPTStepEstimate(c gpt.GPT) Estimate {
	return Default().Estimate(GPTStepWork(c))
}
