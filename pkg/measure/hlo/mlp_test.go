package hlo_test

import (
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The MLP training step as XLA compiles it: arguments are exactly the formula's inputs (batch,
// learning rate, parameters and optimizer state), outputs the new state plus the scalar loss, and
// the kernels include at least one per matmul of the forward and backward passes.
func TestMLPStepAsCompiled(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	for _, opt := range []workloads.Optimizer{workloads.SGD, workloads.Adam} {
		w := workloads.MLP{Batch: 32, In: 64, Hidden: 128, Out: 16, Depth: 1, Type: dtypes.Float32, Optimizer: opt, Seed: 1}
		tr, err := w.NewTrainer(dev)
		if err != nil {
			t.Fatal(err)
		}
		g, err := tr.TrialStep(hlo.DumpName("mlp"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := hlo.Of(g)
		if err != nil {
			t.Fatal(err)
		}
		m := w.Memory()
		state := m.Parameters + m.OptimizerState
		if opt == workloads.Adam {
			state += 4 // the step counter
		}
		if want := m.Batch + 4 + state; r.Memory.Arguments != want {
			t.Errorf("%s: arguments %d B, want batch + lr + state = %d B", opt, r.Memory.Arguments, want)
		}
		// The outputs are a tuple: XLA also counts its table of pointers, 8 B per element.
		nOut := int64(2*(w.Depth+1)) + 1 // parameters + loss
		if opt == workloads.Adam {
			nOut = 3*int64(2*(w.Depth+1)) + 2 // + moments + step
		}
		if want := state + 4 + 8*nOut; r.Memory.Outputs != want {
			t.Errorf("%s: outputs %d B, want state + loss + 8 B × %d outputs = %d B", opt, r.Memory.Outputs, nOut, want)
		}
		// 2 hidden-sized layers: forward 2 matmuls, backward 3 (dW for both, dX for the second).
		if r.Kernels.Total < 5 {
			t.Errorf("%s: %s, want at least the 5 matmuls", opt, r.Kernels)
		}
		if tr.Steps() != 0 {
			t.Errorf("TrialStep changed the step count to %d", tr.Steps())
		}
		t.Logf("%s: %s", opt, r)
		tr.Close()
	}
}
