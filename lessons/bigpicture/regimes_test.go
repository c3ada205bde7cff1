package bigpicture

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// The lesson's claim, by the budget rule: batch-1 decoding of a 7B model is memory-bandwidth-bound
// on an H200 (≈ 2.9 ms of bytes against ≈ 0.014 ms of math), and the toy MLP's request there is
// overhead-bound.
func TestServingRegimes(t *testing.T) {
	g := gpumodel.Default().GPU
	tc, tm := Decode7B.Budgets(g)
	if math.Abs(tm-14e9/4.8e12) > 1e-6 || math.Abs(tc-1.4e10/989e12) > 1e-8 {
		t.Errorf("7B budgets: T_compute %g s, T_memory %g s", tc, tm)
	}
	if r := DecodeRatio(); r < 150 || r > 250 {
		t.Errorf("T_memory/T_compute of the 7B token = %.0f, want ≈ 200", r)
	}
	if v := Decode7B.Budget(g, Decode7B.OnGPU(decodeKernels).Mid()).Classify(); v.Regime != regime.Memory {
		t.Errorf("7B decode on the H200 model: %v", v)
	}
	if v := Toy.Budget(g, Toy.OnGPU(toyKernels).Mid()).Classify(); v.Regime != regime.Overhead {
		t.Errorf("toy request on the H200 model: %v", v)
	}
	// A live row: the toy measured at 15 µs on a CPU whose ceilings make its budgets small.
	r := results.Result{FLOPs: Toy.FLOPs(), Bytes: Toy.Bytes(), CeilingFLOPS: 2e11, CeilingBytesPerSec: 1e11}
	r.Stats.Median = 15 * time.Microsecond
	r.Provenance.Device = devices.CPU
	tab := RegimeTable([]results.Result{r}).Plain()
	for _, want := range []string{regime.Memory, regime.Overhead, "xla:cpu (measured)", "not a measurement"} {
		if !strings.Contains(tab, want) {
			t.Errorf("the regime table lacks %q:\n%s", want, tab)
		}
	}
	if err := gpumodel.CheckLabeled(tab); err != nil {
		t.Error(err)
	}
	// The same request under a bandwidth ceiling measured far too low: T_memory is 4.5× its time, and
	// the row names no regime. At a ceiling that makes T_memory 85% of its time, its weights (in any
	// CPU's cache) still name none: a DRAM budget is only an upper bound there.
	low, near := r, r
	low.CeilingBytesPerSec, near.CeilingBytesPerSec = 5e9, Toy.Bytes()/(0.85*15e-6)
	tab = RegimeTable([]results.Result{low}).Plain()
	if !strings.Contains(tab, regime.CeilingTooLow) || strings.Count(tab, regime.Memory) != 1 {
		t.Errorf("a budget 4.5× the time must give no verdict:\n%s", tab)
	}
	if cs, err := devices.CPUCaches(); err == nil && cs[len(cs)-1].Bytes >= 1<<20 {
		if tab = RegimeTable([]results.Result{near}).Plain(); !strings.Contains(tab, InCacheVerdict) {
			t.Errorf("cache-resident weights named a regime:\n%s", tab)
		}
	}
	if x, err := ToyVersusGPU([]results.Result{r}); err != nil || x <= 0 {
		t.Errorf("ToyVersusGPU = %v, %v", x, err)
	}
	if _, err := ToyVersusGPU(nil); err == nil || !strings.Contains(err.Error(), "run") {
		t.Errorf("with nothing measured, ToyVersusGPU must say which cell to run: %v", err)
	}
}

func TestProblemDecode(t *testing.T) {
	a := ProblemDecode.CheckAnswer(2.9)
	if a.Status != exercise.Close || math.Abs(a.Solution.Value-14e9/4.8e12*1e3) > 1e-9 || len(a.Solution.Steps) < 3 {
		t.Errorf("2.9 ms: %+v", a)
	}
	if a := ProblemDecode.CheckAnswer(0.014); a.Status != exercise.Off {
		t.Errorf("the math alone (0.014 ms) must be off: %v", a.Status)
	}
	if strings.Contains(ProblemDecode.Question, "÷") {
		t.Error("the question must not give the formula")
	}
}

func TestBoosting(t *testing.T) {
	r, err := Boosting{Rows: 2000, Features: 4, Bins: 16, Rounds: 10, LearningRate: 0.3}.Train()
	if err != nil {
		t.Fatal(err)
	}
	if !(r.MSEEnd < 0.6*r.MSEStart) || r.Train <= 0 {
		t.Errorf("boosting did not learn: %+v", r)
	}
	if !strings.Contains(r.Line(), "trained in") {
		t.Errorf("line: %s", r.Line())
	}
	for _, bad := range []Boosting{{Rows: 10, Features: 4, Bins: 16, Rounds: 1, LearningRate: 0.1}, {Rows: 1000, Features: 4, Bins: 300, Rounds: 1, LearningRate: 0.1},
		{Rows: 1000, Features: 4, Bins: 16, Rounds: 1, LearningRate: 0}, {Rows: 1_000_000, Features: 256, Bins: 16, Rounds: 1000, LearningRate: 0.1}} {
		if _, err := bad.Train(); err == nil || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%+v: want a refusal, got %v", bad, err)
		}
	}
}

func TestEmbeddingTable(t *testing.T) {
	s := EmbeddingTable(BigEmbeddings).Plain()
	for _, want := range []string{"477 GiB", "141 GB on the datasheet", "3.4× that", "3.6× if the datasheet's GB were decimal", "bandwidth-bound"} {
		if !strings.Contains(s, want) {
			t.Errorf("embedding table lacks %q:\n%s", want, s)
		}
	}
}
