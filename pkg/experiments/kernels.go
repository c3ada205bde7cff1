package experiments

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/gpu-course/whygpu/pkg/compiled"
	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/gpumodel"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// CountedOn is how a kernel count from XLA's optimized HLO is labeled wherever the GPU model uses
// it: XLA compiles the step for xla:cpu here; a GPU compile fuses differently, so the count is the
// CPU compile's, named as such.
const CountedOn = "counted on xla:cpu"

// CountBatchLimit is the largest batch whose step is compiled and run to count its kernels: the
// count stops changing with the batch well below it (XLA fuses the same way once a batch is more
// than a few dozen rows), and a larger step would cost memory and seconds. A larger batch uses the
// count of the same widths at this batch, and its label says so.
const CountBatchLimit = 4096

// StepKernels is the kernel count of one training step of w: XLA's optimized HLO of the step
// compiled on xla:cpu, counted by package compiled (fusions, library calls such as dots, and other
// kernels), with where it comes from ("counted on xla:cpu", or "counted on xla:cpu at batch 4096,
// same widths" beyond CountBatchLimit). Counts are kept per shape and plugin, in this process and
// on disk (measure.KeepValue), so a slider that returns to a shape answers at once. When the count
// is unavailable (no CPU plugin, a failed compile) it returns 0 and the reason, and the model falls
// back to gpumodel.StepKernelsAssumed, saying so.
func StepKernels(w workloads.MLP) (int, string) {
	at := w
	from := CountedOn
	if w.Batch > CountBatchLimit {
		at.Batch = CountBatchLimit
		from = fmt.Sprintf("%s at batch %d, same widths", CountedOn, CountBatchLimit)
	}
	n, err := countStep(at)
	if err != nil {
		return 0, "no count from xla:cpu: " + err.Error()
	}
	return n, from
}

var (
	countMu sync.Mutex
	counts  = map[string]int{}
)

var nonKey = regexp.MustCompile(`[^A-Za-z0-9.]+`)

// countStep counts w's kernels once per process and plugin, keeping the count on disk.
func countStep(w workloads.MLP) (int, error) {
	return countOnce(w.String(), func(dev *devices.Device) (compiled.Kernels, error) { return CountKernels(dev, w) })
}

// countOnce returns the kernel count of the step described by shape (a text naming every size that
// changes the compiled graph), from this process's counts, from disk (measure.RecallValue), or by
// calling count on xla:cpu and keeping what it returns.
func countOnce(shape string, count func(*devices.Device) (compiled.Kernels, error)) (int, error) {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return 0, err
	}
	key := nonKey.ReplaceAllString(fmt.Sprintf("kernels %s pjrt %s %s", dev.Plugin, dev.PJRTVersion, shape), "-")
	if len(key) > 200 {
		key = key[len(key)-200:]
	}
	countMu.Lock()
	defer countMu.Unlock()
	if n, ok := counts[key]; ok {
		return n, nil
	}
	if n, err := measure.RecallValue[int](key); err == nil && n > 0 {
		counts[key] = n
		return n, nil
	}
	k, err := count(dev)
	if err != nil {
		return 0, err
	}
	counts[key] = k.Total
	_ = measure.KeepValue(key, k.Total) // a cache: a failed write only costs a recount
	return k.Total, nil
}

// CountKernels compiles one training step of w on dev (an XLA device) and counts the kernels in
// XLA's optimized HLO (package compiled). It runs the step once, on fresh parameters.
func CountKernels(dev *devices.Device, w workloads.MLP) (compiled.Kernels, error) {
	tr, err := w.NewTrainer(dev)
	if err != nil {
		return compiled.Kernels{}, err
	}
	defer tr.Close()
	g, err := tr.StepGraph(compiled.DumpName("step"))
	if err != nil {
		return compiled.Kernels{}, err
	}
	r, err := compiled.Of(g)
	if err == nil && r.Kernels.Total <= 0 {
		err = fmt.Errorf("compiled: no kernels counted in the optimized HLO of %s", w)
	}
	return r.Kernels, err
}

// StepWork is the GPU model's description of one training step of w, with its kernel count from
// StepKernels (gpumodel.StepKernelsAssumed, labeled as assumed, when no count is available).
func StepWork(w workloads.MLP) gpumodel.Work {
	n, from := StepKernels(w)
	return gpumodel.Step(w, n, from)
}

// StepEstimate is the course's GPU model (gpumodel.Default, the H200) of one training step of w,
// with the kernels counted on xla:cpu: how every lesson models a step.
func StepEstimate(w workloads.MLP) gpumodel.Estimate { return StepEstimateOn(gpumodel.Default(), w) }

// StepEstimateOn is StepEstimate on another model (the source's H100).
func StepEstimateOn(m gpumodel.Model, w workloads.MLP) gpumodel.Estimate {
	return m.Estimate(StepWork(w))
}

// GPTStepKernels is StepKernels for one training step of the GPT c: the step GoMLX's trainer runs
// (model, cross-entropy, Adam), compiled on xla:cpu but not run (workloads.GPT.StepGraph), so any
// size counts on a laptop; its XLA compile takes a few seconds, once per shape and plugin (kept in
// this process and on disk). When no count is available it returns 0 and the reason, and the model
// falls back to gpumodel.GPTStepKernelsAssumed, saying so.
func GPTStepKernels(c workloads.GPT) (int, string) {
	n, err := countOnce(fmt.Sprintf("%s ffn=%d", c, c.FFNWidth()), func(dev *devices.Device) (compiled.Kernels, error) {
		return CountGPTKernels(dev, c)
	})
	if err != nil {
		return 0, "no count from xla:cpu: " + err.Error()
	}
	return n, CountedOn
}

// CountGPTKernels compiles one training step of c on dev (an XLA device), without running it, and
// counts the kernels in XLA's optimized HLO (package compiled).
func CountGPTKernels(dev *devices.Device, c workloads.GPT) (compiled.Kernels, error) {
	g, done, err := c.StepGraph(dev, compiled.DumpName("gpt_step"))
	if err != nil {
		return compiled.Kernels{}, err
	}
	defer done()
	r, err := compiled.Of(g)
	if err == nil && r.Kernels.Total <= 0 {
		err = fmt.Errorf("compiled: no kernels counted in the optimized HLO of the %s step", c)
	}
	return r.Kernels, err
}

// GPTStepWork is the GPU model's description of one training step of c, with its kernel count
// from GPTStepKernels (gpumodel.GPTStepKernelsAssumed, labeled as assumed, when none is available).
func GPTStepWork(c workloads.GPT) gpumodel.Work {
	n, from := GPTStepKernels(c)
	return gpumodel.GPTStep(c, n, from)
}

// GPTStepEstimate is the course's GPU model (gpumodel.Default, the H200) of one training step of c,
// with the kernels counted on xla:cpu: how a lesson models a GPT step.
func GPTStepEstimate(c workloads.GPT) gpumodel.Estimate {
	return gpumodel.Default().Estimate(GPTStepWork(c))
}
