package feeding

import (
	"testing"
	"time"

	"github.com/gpu-course/whygpu/internal/devicetest"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

func TestShares(t *testing.T) {
	mk := func(workload string, flops float64, d time.Duration) results.Result {
		r := results.Result{Workload: workload, FLOPs: flops}
		r.Stats.Median = d
		r.Provenance.Device = "xla:cpu"
		r.Provenance.Run = results.RunID() // measured in this run: live
		return r
	}
	rs := []results.Result{mk("mlp-part-matmuls", 90, 3*time.Millisecond), mk("mlp-part-optimizer", 10, time.Millisecond),
		mk("mlp-adam", 100, 3*time.Millisecond)}
	shares, step, _ := Shares(rs)
	if len(shares) != 2 || shares[0].FLOPs != 0.9 || shares[0].Time != 0.75 || step.Workload != "mlp-adam" {
		t.Errorf("shares %+v, step %s", shares, step.Workload)
	}
	if _, err := SharesChart(rs); err != nil {
		t.Error(err)
	}
	if h, rows := SharesTable(rs).Parts(); len(rows) != 4 || len(rows[0]) != len(h) {
		t.Errorf("table %v %v", h, rows)
	}
}

// Analytic expectation for the fusion count: XLA compiles 8 one-op executables into 8 kernels and
// the one graph into a single fusion holding the 8 operations.
func TestKernelsOfTheChain(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	for _, fused := range []bool{false, true} {
		w := FusionChain(experiments.Laptop, fused)
		k, f, err := KernelsOf(dev, w)
		if err != nil {
			t.Fatal(err)
		}
		wantK := 8
		if fused {
			wantK = 1
		}
		if k != wantK || f != 8 {
			t.Errorf("fused=%v: %d kernels, %d fused ops; want %d and 8", fused, k, f, wantK)
		}
	}
	if FusionChain(experiments.Laptop, true).N*4 != 128<<20 {
		t.Error("the laptop chain is 128 MiB of float32")
	}
}

func TestStepPartsAddUpToTheStep(t *testing.T) {
	w := PartsModel(experiments.Laptop)
	var sum float64
	for _, p := range workloads.StepParts {
		sum += workloads.MLPPart{MLP: w, Part: p}.FLOPs()
	}
	if m := (workloads.MLPPart{MLP: w, Part: workloads.PartMatMuls}).FLOPs(); m/sum < 0.9 {
		t.Errorf("matmuls are %.0f%% of the step's FLOPs, want most", 100*m/sum)
	}
	if n := len(DefaultDoubling(experiments.Laptop).Pairs()); n != 4 {
		t.Errorf("%d pairs", n)
	}
}
