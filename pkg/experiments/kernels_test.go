package experiments

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/gpumodel"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The model's kernel count is XLA's count on xla:cpu, labeled so, cached per shape (a second ask
// does not compile again), and a batch past CountBatchLimit says it uses the limit's count.
func TestStepKernelsAreCounted(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	for _, tc := range []struct {
		name      string
		size      Size
		wantFrom  string
		wantLimit bool
	}{
		{"batch 1", Size{1, 64}, CountedOn, false},
		{"batch 256", Size{256, 64}, CountedOn, false},
		{"past the limit", Size{4 * CountBatchLimit, 16}, CountedOn + " at batch", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.size.MLP()
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
	// The count is kept on disk: a new process (an emptied map here) reads it back.
	countMu.Lock()
	clear(counts)
	countMu.Unlock()
	if n, from := StepKernels(CourseMLP(1, 64)); n <= 0 || from != CountedOn {
		t.Errorf("after clearing the in-process cache: %d, %q", n, from)
	}
}

// Without a count the model falls back to the assumed 6 per layer and says why.
func TestStepKernelsFallBack(t *testing.T) {
	w := CourseMLP(1, 64)
	work := gpumodel.Step(w, 0, "no count from xla:cpu: no plugin")
	if work.Kernels != gpumodel.StepKernelsAssumed(w) || !strings.Contains(work.KernelsFrom, "assumed") || !strings.Contains(work.KernelsFrom, "no count from xla:cpu") {
		t.Errorf("fallback work: %d kernels from %q", work.Kernels, work.KernelsFrom)
	}
	if note := gpumodel.Default().Estimate(work).Note(); !strings.Contains(note, "assumed") {
		t.Errorf("the fallback's note hides that the count is assumed: %q", note)
	}
}

// A GPT step's kernels are counted on xla:cpu from the compiled (not run) step, per shape: a deeper
// model launches more kernels, a second ask reads the kept count, and the estimate uses it.
func TestGPTStepKernelsAreCounted(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	small := workloads.GPT{Vocab: 32, Context: 16, Batch: 2, Embed: 16, Layers: 1, Heads: 2}
	deeper := small
	deeper.Layers = 2
	var last int
	for _, c := range []workloads.GPT{small, deeper} {
		n, from := GPTStepKernels(c)
		if n <= 0 || from != CountedOn {
			t.Fatalf("GPTStepKernels(%s) = %d, %q; want a count %q", c, n, from, CountedOn)
		}
		if n <= last {
			t.Errorf("%s: %d kernels, not more than the shallower model's %d", c, n, last)
		}
		last = n
		countMu.Lock()
		clear(counts) // the next ask reads the count kept on disk
		countMu.Unlock()
		if n2, _ := GPTStepKernels(c); n2 != n {
			t.Errorf("%s: kept count %d differs from the first %d", c, n2, n)
		}
		if e := GPTStepEstimate(c); e.Work.Kernels != n || !strings.Contains(e.Note(), CountedOn) {
			t.Errorf("%s: the estimate uses %d kernels (%q), want %d counted; note %q", c, e.Work.Kernels, e.Work.KernelsFrom, n, e.Note())
		}
	}
	if n, from := GPTStepKernels(workloads.GPT{Vocab: 32, Context: 16, Batch: 2, Embed: 15, Layers: 1, Heads: 2}); n != 0 || !strings.Contains(from, "no count from xla:cpu") {
		t.Errorf("an invalid GPT: %d, %q; want no count and the reason", n, from)
	}
}

// Without a count the GPT model falls back to the assumed 40 per layer + 30 and says why.
func TestGPTStepKernelsFallBack(t *testing.T) {
	c := workloads.GPT{Vocab: 32, Context: 16, Batch: 2, Embed: 16, Layers: 3, Heads: 2}
	work := gpumodel.GPTStep(c, 0, "no count from xla:cpu: no plugin")
	if work.Kernels != gpumodel.GPTStepKernelsAssumed(c) || !strings.HasPrefix(work.KernelsFrom, "assumed: 40 per layer + 30; no count from xla:cpu") {
		t.Errorf("fallback work: %d kernels from %q", work.Kernels, work.KernelsFrom)
	}
	if note := gpumodel.Default().Estimate(work).Note(); !strings.Contains(note, "assumed") {
		t.Errorf("the fallback's note hides that the count is assumed: %q", note)
	}
}

func TestCheckPoints(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string // "" for no error
	}{
		{0, "03-batch: give at least one batch size"},
		{1, ""},
		{16, ""},
		{17, "03-batch: 17 batch sizes: at most 16 keep the sweep in seconds"},
	} {
		err := CheckPoints("03-batch", "batch size", tc.n, 16)
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("CheckPoints(%d) = %v, want %q", tc.n, err, tc.want)
		}
	}
}

func TestCheckDimsAndDepth(t *testing.T) {
	for _, tc := range []struct {
		dims  []Dim
		depth int
		want  string // "" for no error
	}{
		{[]Dim{{"batch", 1}, {"Hidden", 4096}}, 1, ""},
		{[]Dim{{"batch", 0}, {"Hidden", 64}}, 2, "05-precision: batch 0 refused before anything is allocated: use 1…4096"},
		{[]Dim{{"batch", 8}, {"Hidden", 1_000_000_000}}, 2, "05-precision: Hidden 1000000000 refused before anything is allocated: use 1…4096"},
		{[]Dim{{"batch", 8}}, 0, "05-precision: depth 0 refused: use 1…8 hidden layers"},
		{[]Dim{{"batch", 8}}, 9, "05-precision: depth 9 refused: use 1…8 hidden layers"},
	} {
		err := CheckDims("05-precision", 4096, tc.dims...)
		if err == nil {
			err = CheckDepth("05-precision", tc.depth, 8)
		}
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%v depth %d: %v, want %q", tc.dims, tc.depth, err, tc.want)
		}
	}
}
