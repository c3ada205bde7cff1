package gpumodel

import (
	"strings"
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// The model's kernel count is XLA's count on xla:cpu, labeled so, cached per shape (a second ask
// does not compile again), and a batch past CountBatchLimit says it uses the limit's count.
func TestStepKernelsAreCounted(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	for _, tc := range []struct {
		name      string
		w         workloads.MLP
		wantFrom  string
		wantLimit bool
	}{
		{"batch 1", courseStep(1, 64), hlo.CountedOn, false},
		{"batch 256", courseStep(256, 64), hlo.CountedOn, false},
		{"past the limit", courseStep(4*CountBatchLimit, 16), hlo.CountedOn + " at batch", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.w
			n, from := StepKernels(w)
			if n <= 0 || !strings.HasPrefix(from, tc.wantFrom) {
				t.Fatalf("StepKernels(%s) = %d, %q; want a count %q…", w, n, from, tc.wantFrom)
			}
			start := time.Now()
			if n2, from2 := StepKernels(w); n2 != n || from2 != from {
				t.Errorf("second count %d %q differs from the first %d %q", n2, from2, n, from)
			}
			if d := time.Since(start); d > 50*time.Millisecond {
				t.Logf("the cached count took %v (a loaded machine?)", d) // no timing assertion
			}
			e := StepEstimate(w)
			if e.Work.Kernels != n || !strings.Contains(e.Note(), from) {
				t.Errorf("the estimate uses %d kernels (%q), want the count %d (%q); note %q", e.Work.Kernels, e.Work.KernelsFrom, n, from, e.Note())
			}
		})
	}
	// That the kernels are kept on disk, so a new process reads them back, is hlo's test
	// (TestCompiledKernelsAreKept).
}

// Without a count the model falls back to the assumed 6 per layer and says why.
func TestStepKernelsFallBack(t *testing.T) {
	w := courseStep(1, 64)
	work := MLPStep(w, 0, "no count from xla:cpu: no plugin")
	if work.Kernels != StepKernelsAssumed(w) || !strings.Contains(work.KernelsFrom, "assumed") || !strings.Contains(work.KernelsFrom, "no count from xla:cpu") {
		t.Errorf("fallback work: %d kernels from %q", work.Kernels, work.KernelsFrom)
	}
	if note := Default().Estimate(work).Note(); !strings.Contains(note, "assumed") {
		t.Errorf("the fallback's note hides that the count is assumed: %q", note)
	}
}

// A GPT step's kernels are counted on xla:cpu from the compiled (not run) step, per shape: a deeper
// model launches more kernels, a second ask reads the kept count, and the estimate uses it.
func TestGPTStepKernelsAreCounted(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	small := gpt.GPT{Vocab: 32, Context: 16, Batch: 2, Embed: 16, Layers: 1, Heads: 2}
	deeper := small
	deeper.Layers = 2
	var last int
	for _, c := range []gpt.GPT{small, deeper} {
		n, from := GPTStepKernels(c)
		if n <= 0 || from != hlo.CountedOn {
			t.Fatalf("GPTStepKernels(%s) = %d, %q; want a count %q", c, n, from, hlo.CountedOn)
		}
		if n <= last {
			t.Errorf("%s: %d kernels, not more than the shallower model's %d", c, n, last)
		}
		last = n
		if n2, _ := GPTStepKernels(c); n2 != n {
			t.Errorf("%s: kept count %d differs from the first %d", c, n2, n)
		}
		if e := GPTStepEstimate(c); e.Work.Kernels != n || !strings.Contains(e.Note(), hlo.CountedOn) {
			t.Errorf("%s: the estimate uses %d kernels (%q), want %d counted; note %q", c, e.Work.Kernels, e.Work.KernelsFrom, n, e.Note())
		}
	}
	if n, from := GPTStepKernels(gpt.GPT{Vocab: 32, Context: 16, Batch: 2, Embed: 15, Layers: 1, Heads: 2}); n != 0 || !strings.Contains(from, "no count from xla:cpu") {
		t.Errorf("an invalid GPT: %d, %q; want no count and the reason", n, from)
	}
}

// Without a count the GPT model falls back to the assumed 40 per layer + 30 and says why.
func TestGPTStepKernelsFallBack(t *testing.T) {
	c := gpt.GPT{Vocab: 32, Context: 16, Batch: 2, Embed: 16, Layers: 3, Heads: 2}
	work := GPTStep(c, 0, "no count from xla:cpu: no plugin")
	if work.Kernels != GPTStepKernelsAssumed(c) || !strings.HasPrefix(work.KernelsFrom, "assumed: 40 per layer + 30; no count from xla:cpu") {
		t.Errorf("fallback work: %d kernels from %q", work.Kernels, work.KernelsFrom)
	}
	if note := Default().Estimate(work).Note(); !strings.Contains(note, "assumed") {
		t.Errorf("the fallback's note hides that the count is assumed: %q", note)
	}
}

// courseStep is the course's training step (experiments.CourseMLP, which this package cannot
// import: experiments imports gpumodel) at a batch size and hidden width.
func courseStep(batch, hidden int) workloads.MLP {
	return workloads.MLP{Batch: batch, In: 64, Hidden: hidden, Out: 10, Depth: 2, Type: dtypes.Float32, Optimizer: workloads.SGD, Seed: 1}
}
