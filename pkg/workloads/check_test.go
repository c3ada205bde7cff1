package workloads

import (
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// openDevice opens a device for a test (devicetest.Open: a missing XLA CPU plugin fails under make test).
func openDevice(t testing.TB, name string) *devices.Device { return devicetest.Open(t, name) }

// TestCheckAgainstFloat64 runs every workload on fresh random inputs and compares it with its float64
// host reference, on xla:cpu and the Go backend.
func TestCheckAgainstFloat64(t *testing.T) {
	cases := []struct {
		dev string
		w   Workload
	}{
		{devices.CPU, MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float64}},
		{devices.CPU, MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float32}},
		{devices.CPU, MatMul{M: 100, K: 64, N: 48, Type: dtypes.Float32, Seed: 7}}, // M > checkRows: sampled rows
		{devices.CPU, MatMul{M: 33, K: 47, N: 29, Type: dtypes.BFloat16}},
		{devices.CPU, MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float16}},
		{devices.Go, MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float64}},
		{devices.Go, MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float32}},
		{devices.Go, MatMul{M: 33, K: 47, N: 29, Type: dtypes.BFloat16}},
		{devices.Go, MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float16}},
		{devices.CPU, LayerNorm{Rows: 17, Cols: 96, Type: dtypes.Float32}},
		{devices.CPU, LayerNorm{Rows: 17, Cols: 96, Type: dtypes.BFloat16}},
		{devices.Go, LayerNorm{Rows: 17, Cols: 96, Type: dtypes.Float32}},
		{devices.CPU, Elementwise{N: 1000, Type: dtypes.Float32}},
		{devices.CPU, Elementwise{N: 1000, Type: dtypes.BFloat16}},
		{devices.Go, Elementwise{N: 1000, Type: dtypes.Float64}},
		{devices.CPU, Copy{N: 1000, Type: dtypes.Float32}},
		{devices.Go, Copy{N: 1000, Type: dtypes.Float16}},
		{devices.CPU, Transfer{Size: 4097, Direction: HostToDevice}},
		{devices.CPU, Transfer{Size: 4097, Direction: DeviceToHost}},
		{devices.Go, Transfer{Size: 4097, Direction: DeviceToHost}},
		{devices.CPU, MLP{Batch: 8, In: 16, Hidden: 32, Out: 4, Depth: 2, Type: dtypes.Float32, Optimizer: SGD}},
		{devices.CPU, MLP{Batch: 8, In: 16, Hidden: 32, Out: 4, Depth: 2, Type: dtypes.Float32, Optimizer: Adam}},
		{devices.CPU, MLP{Batch: 8, In: 16, Hidden: 32, Out: 4, Depth: 1, Type: dtypes.BFloat16, Optimizer: Adam}},
		{devices.CPU, MLP{Batch: 4, In: 8, Out: 3, Type: dtypes.Float64}},
		{devices.Go, MLP{Batch: 8, In: 16, Hidden: 32, Out: 4, Depth: 2, Type: dtypes.Float32, Optimizer: Adam}},
		{devices.Go, MLP{Batch: 8, In: 16, Hidden: 32, Out: 4, Depth: 2, Type: dtypes.Float16, Optimizer: SGD}},
		{devices.CPU, MLPForward{Batch: 1, In: 64, Hidden: 256, Out: 10, Depth: 2}},
		{devices.Go, MLPForward{Batch: 3, In: 16, Hidden: 32, Out: 4, Depth: 2, Seed: 5}},
		{devices.CPU, TiedForward{Batch: 1, Width: 16, Layers: 16}},
		{devices.CPU, TiedForward{Batch: 1, Width: 16, Layers: 16, Fused: true}},
		{devices.CPU, TiedForward{Batch: 3, Width: 8, Layers: 4, Seed: 9}},
		{devices.Go, TiedForward{Batch: 2, Width: 8, Layers: 3, Fused: true}},
		{devices.Go, TiedForward{Batch: 2, Width: 8, Layers: 3}},
	}
	for _, tc := range cases {
		t.Run(tc.dev+"/"+tc.w.String(), func(t *testing.T) {
			dev := openDevice(t, tc.dev)
			inst, err := tc.w.Prepare(dev)
			if err != nil {
				t.Fatal(err)
			}
			defer inst.Close()
			if _, err := inst.Compile(); err != nil {
				t.Fatal(err)
			}
			e, err := inst.Check()
			if err != nil {
				t.Fatal(err)
			}
			if tol := ToleranceOf(dev, tc.w); !(e <= tol) {
				t.Errorf("relative error %.3g > tolerance %.0e", e, tol)
			}
			if err := inst.Run(); err != nil {
				t.Errorf("Run after Check: %v", err)
			}
		})
	}
}

// TestCheckDetectsWrongResults makes sure Check is not vacuous: a subtly wrong kernel (off by 1e-3)
// behind the same inputs and reference fails it.
func TestCheckDetectsWrongResults(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	inst, err := MatMul{M: 16, K: 16, N: 16, Type: dtypes.Float32}.Prepare(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	ei := inst.(*execInstance)
	ei.exec.Finalize()
	if ei.exec, err = newExec(dev, "wrong", func(x, y *graph.Node) *graph.Node {
		return graph.AddScalar(graph.MatMul(x, y), 1e-3)
	}); err != nil {
		t.Fatal(err)
	}
	e, err := inst.Check()
	if err != nil {
		t.Fatal(err)
	}
	if e <= Tolerance(dtypes.Float32) {
		t.Errorf("a wrong kernel passed Check: relative error %g", e)
	}
}

func TestMLPTrainerKeepsStateOnDevice(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	w := MLP{Batch: 16, In: 8, Hidden: 16, Out: 2, Depth: 1, Type: dtypes.Float32, Optimizer: Adam, LR: 0.01}
	tr, err := w.NewTrainer(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.Loss(); err == nil {
		t.Error("Loss before any Step should be an error")
	}
	var first float64
	for i := 0; i < 30; i++ {
		if err := tr.Step(); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			if first, err = tr.Loss(); err != nil {
				t.Fatal(err)
			}
		}
	}
	last, err := tr.Loss()
	if err != nil {
		t.Fatal(err)
	}
	if tr.Steps() != 30 {
		t.Errorf("Steps() = %d, want 30", tr.Steps())
	}
	if !(last < first) {
		t.Errorf("loss did not go down on a fixed batch: first %g, after 30 steps %g", first, last)
	}
	if err := tr.SetBatch(make([]float32, 3), nil); err == nil {
		t.Error("SetBatch with wrong sizes should be an error")
	}
}
