package workloads_test

import (
	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/launch"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

func cpuDevice(t *testing.T) *devices.Device {
	t.Helper()
	return devicetest.Open(t, devices.CPU)
}

// Every new workload computes what its float64 reference says.
func TestIssue13WorkloadsCheck(t *testing.T) {
	dev := cpuDevice(t)
	mlp := workloads.MLP{Batch: 16, In: 32, Hidden: 24, Depth: 2, Out: 8, Type: dtypes.Float32, Seed: 3}
	adam := mlp
	adam.Optimizer = workloads.Adam
	ws := []workloads.Workload{
		membound.Passes{N: 1000, Passes: 7, Op: "copy", Type: dtypes.Float32},
		membound.Passes{N: 1000, Passes: 7, Op: "axpb", Type: dtypes.Float32},
		membound.Passes{N: 512, Passes: 3, FMAs: 16, Op: "axpb", Type: dtypes.Float32},
		launch.ElementwiseChain{N: 4096, Ops: 8, Fused: true, Type: dtypes.Float32},
		launch.ElementwiseChain{N: 4096, Ops: 8, Type: dtypes.Float32},
	}
	for _, p := range workloads.StepParts {
		ws = append(ws, workloads.MLPPart{MLP: mlp, Part: p}, workloads.MLPPart{MLP: adam, Part: p})
	}
	for _, w := range ws {
		t.Run(w.String(), func(t *testing.T) {
			inst := workloads.Compiled(t, dev, w)
			if err := inst.Run(); err != nil {
				t.Fatal(err)
			}
			e, err := inst.Check()
			if err != nil {
				t.Fatal(err)
			}
			if e > 2e-6 {
				t.Errorf("relative error %g", e)
			}
		})
	}
}

func TestIssue13Formulas(t *testing.T) {
	mlp := workloads.MLP{Batch: 64, In: 256, Hidden: 128, Depth: 2, Out: 16, Type: dtypes.Float32}
	adam := mlp
	adam.Optimizer = workloads.Adam
	tests := []struct {
		w            workloads.Counter
		flops, bytes float64
	}{
		{membound.Passes{N: 1024, Passes: 10, Op: "copy", Type: dtypes.Float32}, 0, 10 * 2 * 4096},
		{membound.Passes{N: 1024, Passes: 10, FMAs: 4, Op: "axpb", Type: dtypes.Float32}, 10 * 4 * 2 * 1024, 10 * 2 * 4096},
		{launch.ElementwiseChain{N: 1 << 20, Ops: 8, Fused: true, Type: dtypes.Float32}, 8 << 20, 8 << 20},
		{launch.ElementwiseChain{N: 1 << 20, Ops: 8, Type: dtypes.Float32}, 8 << 20, 64 << 20},
		// 2·64·(256·128 + 128·128 + 128·16) forward, × 3 minus the first layer's input gradient.
		{workloads.MLPPart{MLP: mlp, Part: workloads.PartMatMuls}, 3*2*64*(256*128+128*128+128*16) - 2*64*256*128, 0},
		{workloads.MLPPart{MLP: mlp, Part: workloads.PartBiasAct}, 6*64*128*2 + 2*64*16, 0},
		{workloads.MLPPart{MLP: mlp, Part: workloads.PartLoss}, 4 * 64 * 16, 4 * (2*64*16 + 64*16 + 1)},
		{workloads.MLPPart{MLP: mlp, Part: workloads.PartOptimizer}, 2 * float64(mlp.NumParams()), 3 * 4 * float64(mlp.NumParams())},
		{workloads.MLPPart{MLP: adam, Part: workloads.PartOptimizer}, 14 * float64(mlp.NumParams()), 7 * 4 * float64(mlp.NumParams())},
	}
	for _, tc := range tests {
		if got := tc.w.FLOPs(); got != tc.flops {
			t.Errorf("%s: FLOPs %g, want %g", tc.w, got, tc.flops)
		}
		if got := tc.w.Bytes(); tc.bytes > 0 && got != tc.bytes {
			t.Errorf("%s: bytes %g, want %g", tc.w, got, tc.bytes)
		}
	}
	if (workloads.MLPPart{MLP: mlp, Part: workloads.PartMatMuls}).FLOPs() != mlp.ExactFLOPs() {
		t.Error("the matmul part must do the step's exact matmul FLOPs")
	}
}

func TestIssue13Errors(t *testing.T) {
	dev := cpuDevice(t)
	for _, w := range []workloads.Workload{
		membound.Passes{N: 0, Passes: 1, Op: "copy", Type: dtypes.Float32},
		membound.Passes{N: 8, Passes: 1, Op: "scale", Type: dtypes.Float32},
		launch.ElementwiseChain{N: 8, Ops: 0, Type: dtypes.Float32},
		launch.ElementwiseChain{N: 8, Ops: 2, Type: dtypes.Int32},
		workloads.MLPPart{MLP: workloads.MLP{Batch: 4, In: 4, Hidden: 4, Depth: 1, Out: 4, Type: dtypes.Float32}, Part: "softmax"},
		workloads.MLPPart{MLP: workloads.MLP{Batch: 4, In: 4, Hidden: 4, Depth: 1, Out: 4, Type: dtypes.BFloat16}, Part: workloads.PartLoss},
	} {
		if inst, err := w.Prepare(dev); err == nil {
			inst.Close()
			t.Errorf("%s: want an error", w)
		}
	}
}
