package workloads

import (
	"github.com/gpu-course/whygpu/internal/devicetest"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// TestGradModelAgainstFloat64 runs the model's gradients graph (loss scale 1) and one SGD step on
// random parameters and a random batch, and compares them with MLP's float64 reference of the same
// shapes (pkg/workloads/train's GradLab runs these two graphs).
func TestGradModelAgainstFloat64(t *testing.T) {
	for _, tc := range []struct {
		dev string
		m   GradModel
	}{
		{devices.CPU, GradModel{Batch: 16, In: 4, Hidden: 8, Out: 2, Depth: 1, Seed: 3}},
		{devices.CPU, GradModel{Batch: 32, In: 8, Hidden: 16, Out: 3, Depth: 2, Seed: 1}},
		{devices.Go, GradModel{Batch: 8, In: 5, Hidden: 6, Out: 2, Depth: 2, Seed: 7}},
	} {
		t.Run(tc.dev, func(t *testing.T) {
			dev := devicetest.Open(t, tc.dev)
			m := tc.m
			x, y := RandomFloats(m.Batch*m.In, m.Seed+1), RandomFloats(m.Batch*m.Out, m.Seed+2)
			w := m.mlp()
			init := w.initParams(m.Seed)
			args := func(scalar float32) []any {
				a := []any{tensors.FromFlatDataAndDimensions(x, m.Batch, m.In), tensors.FromFlatDataAndDimensions(y, m.Batch, m.Out), tensors.FromScalar(scalar)}
				d := m.Dims()
				for k, v := range init {
					if k%2 == 0 {
						a = append(a, tensors.FromFlatDataAndDimensions(v, d[k/2], d[k/2+1]))
					} else {
						a = append(a, tensors.FromFlatDataAndDimensions(v, 1, d[k/2+1]))
					}
				}
				return a
			}
			const lr = 0.5
			w.Type = dtypes.Float64 // the reference rounds nothing
			ref := refTrain(w, init, RoundTo(x, dtypes.Float32), RoundTo(y, dtypes.Float32), lr, 1)
			grads, err := graph.NewExec(dev.Backend(), m.ScaledGradients)
			if err != nil {
				t.Fatal(err)
			}
			outs, err := grads.Exec(args(1)...)
			if err != nil {
				t.Fatal(err)
			}
			var got []float64
			for _, o := range outs[1 : 1+len(init)] {
				v, err := toFloat64(o)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, v...)
			}
			FreeAll(outs)
			want := make([]float64, len(ref.delta))
			for i, d := range ref.delta {
				want[i] = -d / lr
			}
			if len(got) != int(m.NumParams()) || relErr(got, want) > 1e-5 {
				t.Errorf("gradients: %d values (want %d), relative error %.3g", len(got), m.NumParams(), relErr(got, want))
			}
			step, err := graph.NewExec(dev.Backend(), m.SGDStep)
			if err != nil {
				t.Fatal(err)
			}
			outs, err = step.Exec(args(lr)...)
			if err != nil {
				t.Fatal(err)
			}
			var after []float64
			for _, o := range outs[:len(init)] {
				v, err := toFloat64(o)
				if err != nil {
					t.Fatal(err)
				}
				after = append(after, v...)
			}
			FreeAll(outs)
			if e := relErr(after, ref.params); e > 1e-6 {
				t.Errorf("after one step: relative error %.3g", e)
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
			continue
		}
		if tc.m.NumParams() != tc.params || tc.m.FLOPs() != tc.flops || tc.m.Bytes() != tc.bytes {
			t.Errorf("%+v: %d params, %g FLOPs, %g B; want %d, %g, %g", tc.m, tc.m.NumParams(), tc.m.FLOPs(), tc.m.Bytes(), tc.params, tc.flops, tc.bytes)
		}
	}
}
