package workloads_test

import (
	"errors"
	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// TestBadInputsAreErrors: invalid shapes, dtypes a backend lacks and workloads too large for memory
// come back as error values with a clear message, never a panic or a killed process.
func TestBadInputsAreErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		dev  string
		w    workloads.Workload
		want string // substring of the error
		oom  bool
	}{
		{"matmul zero size", devices.CPU, workloads.MatMul{M: 0, K: 4, N: 4, Type: dtypes.Float32}, "positive sizes", false},
		{"matmul negative size", devices.Go, workloads.MatMul{M: 4, K: -1, N: 4, Type: dtypes.Float32}, "positive sizes", false},
		{"matmul integer dtype", devices.CPU, workloads.Square(8, dtypes.Int32), "floating-point", false},
		{"matmul float8 on go", devices.Go, workloads.Square(8, dtypes.F8E4M3FN), "floating-point dtype, got F8E4M3FN", false},
		{"layernorm no columns", devices.CPU, membound.LayerNorm{Rows: 4, Cols: 0, Type: dtypes.Float32}, "positive sizes", false},
		{"elementwise empty", devices.CPU, membound.Elementwise{N: 0, Type: dtypes.Float32}, "positive N", false},
		{"copy integer", devices.CPU, membound.Copy{N: 8, Type: dtypes.Int8}, "floating-point", false},
		{"transfer no bytes", devices.CPU, membound.Transfer{Size: 0, Direction: membound.HostToDevice}, "positive size", false},
		{"transfer bad direction", devices.CPU, membound.Transfer{Size: 8, Direction: "sideways"}, "direction", false},
		{"mlp no batch", devices.CPU, workloads.MLP{Batch: 0, In: 4, Hidden: 4, Out: 2, Depth: 1, Type: dtypes.Float32}, "positive Batch", false},
		{"mlp no hidden width", devices.CPU, workloads.MLP{Batch: 2, In: 4, Out: 2, Depth: 1, Type: dtypes.Float32}, "Hidden", false},
		{"mlp unknown optimizer", devices.CPU, workloads.MLP{Batch: 2, In: 4, Out: 2, Type: dtypes.Float32, Optimizer: "lion"}, "unknown optimizer", false},
		{"mlp negative lr", devices.CPU, workloads.MLP{Batch: 2, In: 4, Out: 2, Type: dtypes.Float32, LR: -1}, "learning rate", false},
		// Far beyond any machine: refused from the shapes, before anything is allocated.
		{"matmul out of memory", devices.CPU, workloads.Square(1<<20, dtypes.Float32), "out of memory", true},
		{"matmul out of memory go", devices.Go, workloads.Square(1<<20, dtypes.Float64), "out of memory", true},
		{"layernorm out of memory", devices.CPU, membound.LayerNorm{Rows: 1 << 20, Cols: 1 << 20, Type: dtypes.Float32}, "out of memory", true},
		{"copy out of memory", devices.CPU, membound.Copy{N: 1 << 42, Type: dtypes.Float32}, "out of memory", true},
		{"transfer out of memory", devices.CPU, membound.Transfer{Size: 1 << 45, Direction: membound.HostToDevice}, "out of memory", true},
		{"mlp out of memory", devices.CPU, workloads.MLP{Batch: 1 << 20, In: 1 << 16, Hidden: 1 << 16, Out: 10, Depth: 8, Type: dtypes.Float32, Optimizer: workloads.Adam}, "out of memory", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := devicetest.Open(t, tc.dev)
			inst, err := tc.w.Prepare(dev)
			if err == nil {
				inst.Close()
				t.Fatalf("Prepare succeeded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if got := errors.Is(err, workloads.ErrOutOfMemory); got != tc.oom {
				t.Errorf("errors.Is(err, ErrOutOfMemory) = %v, want %v (err: %v)", got, tc.oom, err)
			}
		})
	}
}

func TestDeviceErrMarksOutOfMemory(t *testing.T) {
	for _, tc := range []struct {
		msg string
		oom bool
	}{
		{"RESOURCE_EXHAUSTED: Out of memory while trying to allocate 85899345920 bytes", true},
		{"CUDA_ERROR_OUT_OF_MEMORY: out of memory", true},
		{"Failed to allocate request for 80.00GiB", true},
		{"INVALID_ARGUMENT: shapes do not match", false},
	} {
		err := workloads.DeviceErr(errors.New(tc.msg), "running %s", "matmul")
		if got := errors.Is(err, workloads.ErrOutOfMemory); got != tc.oom {
			t.Errorf("%q: errors.Is(ErrOutOfMemory) = %v, want %v", tc.msg, got, tc.oom)
		}
		if !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: the device's message is lost: %v", tc.msg, err)
		}
	}
}

func TestSupports(t *testing.T) {
	for _, tc := range []struct {
		dev string
		dt  dtypes.DType
		ok  bool
	}{
		{devices.CPU, dtypes.Float32, true},
		{devices.CPU, dtypes.BFloat16, true},
		{devices.CPU, dtypes.Float16, true}, // missing from go-xla's table, run by XLA (see Supports)
		{devices.Go, dtypes.Float16, true},  // compute v0.1.2's Go backend has float16
		{devices.Go, dtypes.F8E4M3FN, false},
	} {
		dev := devicetest.Open(t, tc.dev)
		ok, why := workloads.Supports(dev, tc.dt)
		if ok != tc.ok {
			t.Errorf("Supports(%s, %s) = %v (%s), want %v", tc.dev, tc.dt, ok, why, tc.ok)
		}
		if !ok && why == "" {
			t.Errorf("Supports(%s, %s): no reason given", tc.dev, tc.dt)
		}
	}
}

func TestPrecisionAndTolerance(t *testing.T) {
	tf32GPU := &devices.Device{Name: devices.CUDA, Kind: devices.KindGPU, TF32: true}
	plainGPU := &devices.Device{Name: devices.CUDA, Config: devices.CUDANoTF32, Kind: devices.KindGPU}
	cpu := &devices.Device{Name: devices.CPU, Kind: devices.KindCPU}
	mlp := workloads.MLP{Batch: 1, In: 1, Out: 1, Type: dtypes.Float32}
	for _, tc := range []struct {
		name string
		dev  *devices.Device
		w    workloads.Workload
		prec string
		tol  float64
	}{
		{"f32 matmul on TF32 GPU", tf32GPU, workloads.Square(8, dtypes.Float32), workloads.TF32, 1e-2},
		{"f32 mlp on TF32 GPU", tf32GPU, mlp, workloads.TF32, 1e-2},
		{"f32 layernorm on TF32 GPU", tf32GPU, membound.LayerNorm{Rows: 1, Cols: 1, Type: dtypes.Float32}, "float32", 1e-5},
		{"bf16 matmul on TF32 GPU", tf32GPU, workloads.Square(8, dtypes.BFloat16), "bfloat16", 1e-2},
		{"f32 matmul, TF32 off", plainGPU, workloads.Square(8, dtypes.Float32), "float32", 1e-5},
		{"f64 matmul on CPU", cpu, workloads.Square(8, dtypes.Float64), "float64", 1e-12},
		{"f32 matmul on CPU", cpu, workloads.Square(8, dtypes.Float32), "float32", 1e-5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := workloads.Precision(tc.dev, tc.w); got != tc.prec {
				t.Errorf("Precision = %q, want %q", got, tc.prec)
			}
			if got := workloads.ToleranceOf(tc.dev, tc.w); got != tc.tol {
				t.Errorf("ToleranceOf = %g, want %g", got, tc.tol)
			}
		})
	}
}
