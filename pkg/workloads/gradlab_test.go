package workloads

import (
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/devices"
)

// TestGradLabAgainstFloat64 compares the lab's float32 gradients (loss scale 1) and one SGD step
// with MLP's float64 reference of the same shapes, parameters and batch.
func TestGradLabAgainstFloat64(t *testing.T) {
	for _, tc := range []struct {
		dev string
		m   GradModel
	}{
		{devices.CPU, GradModel{Batch: 16, In: 4, Hidden: 8, Out: 2, Depth: 1, Seed: 3}},
		{devices.CPU, GradModel{Batch: 32, In: 8, Hidden: 16, Out: 3, Depth: 2, Seed: 1}},
		{devices.Go, GradModel{Batch: 8, In: 5, Hidden: 6, Out: 2, Depth: 2, Seed: 7}},
	} {
		t.Run(tc.dev, func(t *testing.T) {
			dev := openDevice(t, tc.dev)
			lab, err := NewGradLab(dev, tc.m)
			if err != nil {
				t.Fatal(err)
			}
			defer lab.Close()
			host := func(x *tensors.Tensor) []float64 {
				v, err := toFloat64(x)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			var init [][]float32
			for _, p := range lab.params {
				init = append(init, tensors.MustCopyFlatData[float32](p))
			}
			const lr = 0.5
			w := tc.m.mlp()
			w.Type = dtypes.Float64 // the reference rounds nothing
			ref := refTrain(w, init, host(lab.x), host(lab.y), lr, 1)
			g, err := lab.Gradients(1)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, len(ref.delta))
			for i, d := range ref.delta {
				want[i] = -d / lr
			}
			got := make([]float64, len(g.Params))
			for i, v := range g.Params {
				got[i] = float64(v)
			}
			if len(got) != int(tc.m.NumParams()) || relErr(got, want) > 1e-5 {
				t.Errorf("gradients: %d values (want %d), relative error %.3g", len(got), tc.m.NumParams(), relErr(got, want))
			}
			if _, err := lab.Train(1, lr); err != nil {
				t.Fatal(err)
			}
			var after []float64
			for _, p := range lab.params {
				after = append(after, host(p)...)
			}
			if e := relErr(after, ref.params); e > 1e-6 || lab.Steps() != 1 {
				t.Errorf("after one step: relative error %.3g, steps %d", e, lab.Steps())
			}
		})
	}
}

func TestGradModelFormulasAndErrors(t *testing.T) {
	for _, tc := range []struct {
		m            GradModel
		params       int64
		flops, bytes float64
		bad          bool
	}{
		// 10→20→20→5 at batch 4 is formulas_test's "mlp sgd f32": 745 parameters, 16800 FLOPs, 7640 B.
		{GradModel{Batch: 4, In: 10, Hidden: 20, Out: 5, Depth: 2}, 745, 16800, 7640, false},
		{GradModel{Batch: 4, In: 10, Hidden: 20, Out: 5, Depth: 0}, 0, 0, 0, true},
		{GradModel{Batch: 0, In: 10, Hidden: 20, Out: 5, Depth: 1}, 0, 0, 0, true},
	} {
		if err := tc.m.Validate(); (err != nil) != tc.bad {
			t.Errorf("%+v: Validate() = %v, want error %v", tc.m, err, tc.bad)
		}
		if tc.bad {
			if _, err := NewGradLab(nil, tc.m); err == nil {
				t.Errorf("%+v: NewGradLab accepted it", tc.m)
			}
			continue
		}
		if tc.m.NumParams() != tc.params || tc.m.FLOPs() != tc.flops || tc.m.Bytes() != tc.bytes {
			t.Errorf("%+v: %d params, %g FLOPs, %g B; want %d, %g, %g", tc.m, tc.m.NumParams(), tc.m.FLOPs(), tc.m.Bytes(), tc.params, tc.flops, tc.bytes)
		}
	}
}
