package workloads_test

import (
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/launch"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// openDevice opens a device for a test (devicetest.Open: a missing XLA CPU plugin fails under make test).

// TestCheckAgainstFloat64 runs every workload on fresh random inputs and compares it with its float64
// host reference, on xla:cpu and the Go backend.
func TestCheckAgainstFloat64(t *testing.T) {
	cases := []struct {
		dev string
		w   workloads.Workload
	}{
		{devices.CPU, workloads.MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float64}},
		{devices.CPU, workloads.MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float32}},
		{devices.CPU, workloads.MatMul{M: 100, K: 64, N: 48, Type: dtypes.Float32, Seed: 7}}, // M > checkRows: sampled rows
		{devices.CPU, workloads.MatMul{M: 33, K: 47, N: 29, Type: dtypes.BFloat16}},
		{devices.CPU, workloads.MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float16}},
		{devices.Go, workloads.MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float64}},
		{devices.Go, workloads.MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float32}},
		{devices.Go, workloads.MatMul{M: 33, K: 47, N: 29, Type: dtypes.BFloat16}},
		{devices.Go, workloads.MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float16}},
		{devices.CPU, membound.LayerNorm{Rows: 17, Cols: 96, Type: dtypes.Float32}},
		{devices.CPU, membound.LayerNorm{Rows: 17, Cols: 96, Type: dtypes.BFloat16}},
		{devices.Go, membound.LayerNorm{Rows: 17, Cols: 96, Type: dtypes.Float32}},
		{devices.CPU, membound.Elementwise{N: 1000, Type: dtypes.Float32}},
		{devices.CPU, membound.Elementwise{N: 1000, Type: dtypes.BFloat16}},
		{devices.Go, membound.Elementwise{N: 1000, Type: dtypes.Float64}},
		{devices.CPU, membound.Copy{N: 1000, Type: dtypes.Float32}},
		{devices.Go, membound.Copy{N: 1000, Type: dtypes.Float16}},
		{devices.CPU, membound.Transfer{Size: 4097, Direction: membound.HostToDevice}},
		{devices.CPU, membound.Transfer{Size: 4097, Direction: membound.DeviceToHost}},
		{devices.Go, membound.Transfer{Size: 4097, Direction: membound.DeviceToHost}},
		{devices.CPU, workloads.MLP{Batch: 8, In: 16, Hidden: 32, Out: 4, Depth: 2, Type: dtypes.Float32, Optimizer: workloads.SGD}},
		{devices.CPU, workloads.MLP{Batch: 8, In: 16, Hidden: 32, Out: 4, Depth: 2, Type: dtypes.Float32, Optimizer: workloads.Adam}},
		{devices.CPU, workloads.MLP{Batch: 8, In: 16, Hidden: 32, Out: 4, Depth: 1, Type: dtypes.BFloat16, Optimizer: workloads.Adam}},
		{devices.CPU, workloads.MLP{Batch: 4, In: 8, Out: 3, Type: dtypes.Float64}},
		{devices.Go, workloads.MLP{Batch: 8, In: 16, Hidden: 32, Out: 4, Depth: 2, Type: dtypes.Float32, Optimizer: workloads.Adam}},
		{devices.Go, workloads.MLP{Batch: 8, In: 16, Hidden: 32, Out: 4, Depth: 2, Type: dtypes.Float16, Optimizer: workloads.SGD}},
		{devices.CPU, workloads.MLPForward{Batch: 1, In: 64, Hidden: 256, Out: 10, Depth: 2}},
		{devices.Go, workloads.MLPForward{Batch: 3, In: 16, Hidden: 32, Out: 4, Depth: 2, Seed: 5}},
		{devices.CPU, launch.TiedForward{Batch: 1, Width: 16, Layers: 16}},
		{devices.CPU, launch.TiedForward{Batch: 1, Width: 16, Layers: 16, Fused: true}},
		{devices.CPU, launch.TiedForward{Batch: 3, Width: 8, Layers: 4, Seed: 9}},
		{devices.Go, launch.TiedForward{Batch: 2, Width: 8, Layers: 3, Fused: true}},
		{devices.Go, launch.TiedForward{Batch: 2, Width: 8, Layers: 3}},
	}
	for _, tc := range cases {
		t.Run(tc.dev+"/"+tc.w.String(), func(t *testing.T) {
			dev := devicetest.Open(t, tc.dev)
			inst := workloads.Compiled(t, dev, tc.w)
			e, err := inst.Check()
			if err != nil {
				t.Fatal(err)
			}
			if tol := workloads.ToleranceOf(dev, tc.w); !(e <= tol) {
				t.Errorf("relative error %.3g > tolerance %.0e", e, tol)
			}
			if err := inst.Run(); err != nil {
				t.Errorf("Run after Check: %v", err)
			}
		})
	}
}

func TestMLPTrainerKeepsStateOnDevice(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	w := workloads.MLP{Batch: 16, In: 8, Hidden: 16, Out: 2, Depth: 1, Type: dtypes.Float32, Optimizer: workloads.Adam, LR: 0.01}
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
