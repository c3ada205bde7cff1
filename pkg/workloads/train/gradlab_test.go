package train

import (
	"math"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// TestGradLabStepsWithItsGradients checks the lab's bookkeeping around the two graphs (whose values
// workloads' TestGradModelAgainstFloat64 checks against float64): one SGD step moves every parameter
// by −lr × the gradient Gradients(1) returned, and Steps counts it.
func TestGradLabStepsWithItsGradients(t *testing.T) {
	for _, tc := range []struct {
		dev string
		m   workloads.GradModel
	}{
		{devices.CPU, workloads.GradModel{Batch: 16, In: 4, Hidden: 8, Out: 2, Depth: 1, Seed: 3}},
		{devices.Go, workloads.GradModel{Batch: 8, In: 5, Hidden: 6, Out: 2, Depth: 2, Seed: 7}},
	} {
		t.Run(tc.dev, func(t *testing.T) {
			dev := devicetest.Open(t, tc.dev)
			lab, err := NewGradLab(dev, tc.m)
			if err != nil {
				t.Fatal(err)
			}
			defer lab.Close()
			var before []float64
			for _, p := range lab.params {
				for _, v := range tensors.MustCopyFlatData[float32](p) {
					before = append(before, float64(v))
				}
			}
			g, err := lab.Gradients(1)
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Params) != int(tc.m.NumParams()) || len(g.Acts) == 0 || g.Loss <= 0 {
				t.Fatalf("gradients: %d values (want %d), %d activation gradients, loss %g", len(g.Params), tc.m.NumParams(), len(g.Acts), g.Loss)
			}
			const lr = 0.5
			if _, err := lab.Train(1, lr); err != nil {
				t.Fatal(err)
			}
			var worst, scale float64
			i := 0
			for _, p := range lab.params {
				for _, v := range tensors.MustCopyFlatData[float32](p) {
					want := before[i] - lr*float64(g.Params[i])
					worst = math.Max(worst, math.Abs(float64(v)-want))
					scale = math.Max(scale, math.Abs(want))
					i++
				}
			}
			if worst > 1e-6*scale || lab.Steps() != 1 {
				t.Errorf("after one step: largest difference %.3g (of %.3g), steps %d", worst, scale, lab.Steps())
			}
		})
	}
}

func TestGradLabRefusesAnInvalidModel(t *testing.T) {
	for _, m := range []workloads.GradModel{
		{Batch: 4, In: 10, Hidden: 20, Out: 5, Depth: 0},
		{Batch: 0, In: 10, Hidden: 20, Out: 5, Depth: 1},
	} {
		if _, err := NewGradLab(nil, m); err == nil {
			t.Errorf("%+v: NewGradLab accepted it", m)
		}
	}
}
