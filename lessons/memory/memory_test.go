package memory

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

func TestRecipes(t *testing.T) {
	for _, c := range []struct {
		i    int
		want int
	}{{0, 8}, {1, 12}, {2, 16}, {3, 16}} {
		if got := Recipes[c.i].Total(); got != c.want {
			t.Errorf("%s: %d bytes/param, want %d", Recipes[c.i].Recipe, got, c.want)
		}
	}
	// PyTorch's autocast keeps no 16-bit weight copy: its 16 bytes are the float32 Adam row's
	if n := ampNote(); !strings.Contains(n, "float32 Adam row's 16 bytes, the same total") {
		t.Errorf("AMP note: %q", n)
	}
}

func TestLedgerAndAdam(t *testing.T) {
	w := Model(experiments.Laptop, 64)
	if r := AdamRatio(w); r != 2 {
		t.Errorf("Adam state / weights = %v, want 2", r)
	}
	var sum int64
	for _, r := range Ledger(w) {
		sum += r.Bytes
	}
	if sum != w.Memory().Total() {
		t.Errorf("ledger sums to %d, want %d", sum, w.Memory().Total())
	}
	// Activations grow with the batch, the rest does not.
	a, b := Model(experiments.Laptop, 64).Memory(), Model(experiments.Laptop, 128).Memory()
	if b.Activations != 2*a.Activations || b.Parameters != a.Parameters || b.OptimizerState != a.OptimizerState {
		t.Errorf("batch scaling wrong: %v vs %v", a, b)
	}
}

func TestLargestBatchAndBudget(t *testing.T) {
	w := Model(experiments.Laptop, 1)
	m := w.Memory()
	fixed := m.Parameters + m.Gradients + m.OptimizerState
	per := m.Activations + m.Batch
	for _, c := range []struct {
		budget uint64
		want   int
	}{{uint64(fixed), 0}, {uint64(fixed + 10*per), 10}, {uint64(fixed + 10*per + per/2), 10}} {
		if got := LargestBatch(w, c.budget); got != c.want {
			t.Errorf("LargestBatch(%d) = %d, want %d", c.budget, got, c.want)
		}
	}
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	big := TooLarge(dev)
	if err := Budget(dev, big); dev.AvailableMemory() > 0 && !errors.Is(err, workloads.ErrOutOfMemory) {
		t.Errorf("Budget(%v) = %v, want ErrOutOfMemory", big, err)
	}
	if err := Budget(dev, Model(experiments.Laptop, 4)); err != nil {
		t.Errorf("a small step should fit: %v", err)
	}
	if err := GPUOutOfMemory(dev); err == nil || IsOOM(err) {
		t.Errorf("GPUOutOfMemory on the Go backend must refuse without allocating, got %v", err)
	}
}

func TestCheckpointPlans(t *testing.T) {
	w := Model(experiments.Laptop, 16)
	ps := CheckpointPlans(w, 16, []int{1, 4})
	if ps[0].Kept != 16 || ps[0].ExtraFLOPs != 0 {
		t.Errorf("no checkpointing: %+v", ps[0])
	}
	if ps[1].Kept != 8 || ps[1].Activation*2 != ps[0].Activation {
		t.Errorf("every 4 of 16: %+v", ps[1])
	}
	// Recomputing 12 of 16 layers' forward: 12/(3·16) = 25% more FLOPs.
	if got := ps[1].ExtraFLOPs / (ps[0].StepFLOPs); got < 0.249 || got > 0.251 {
		t.Errorf("extra FLOPs share = %v, want 0.25", got)
	}
}

// TestSweepOnGoBackend runs a tiny sweep step on the pure-Go backend (no plugin needed).
func TestSweepOnGoBackend(t *testing.T) {
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	w := workloads.MLP{Batch: 8, In: 8, Hidden: 8, Depth: 1, Out: 2, Type: Model(experiments.Laptop, 1).Type, Optimizer: workloads.Adam}
	r, err := MeasureBatch(dev, w)
	if err != nil {
		t.Fatal(err)
	}
	if r.Seconds() <= 0 {
		t.Errorf("result %+v", r)
	}
	if _, ok := r.Metrics[ParamMeasured]; !ok {
		t.Error("no measured memory")
	}
	r2 := r
	r2.Params = map[string]int{"batch": 16, "in": 8, "hidden": 8, "depth": 1, "out": 2}
	r2.Metrics = map[string]float64{ParamMeasured: r.Metrics[ParamMeasured] + 1000}
	if _, err := Chart([]results.Result{r, r2}); err != nil {
		t.Errorf("Chart: %v", err)
	}
	if s, _, ok := Slope([]results.Result{r, r2}); !ok || s <= 0 {
		t.Errorf("Slope = %v, %v", s, ok)
	}
}

// A peak that could not be seen is shown as what it is, never as the peak.
func TestMeasuredSourceSaysFallback(t *testing.T) {
	tests := []struct {
		metrics map[string]float64
		want    string
	}{
		{map[string]float64{ParamOnGPU: 1}, "GPU memory (NVML)"},
		{map[string]float64{ParamOnGPU: 0, ParamPeakFallback: 1}, measure.FallbackNote},
		{map[string]float64{ParamOnGPU: 0, ParamPeakFallback: 0}, "process peak RSS"},
	}
	for _, tc := range tests {
		if got := measuredSource(results.Result{Metrics: tc.metrics}); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.metrics, got, tc.want)
		}
	}
}
