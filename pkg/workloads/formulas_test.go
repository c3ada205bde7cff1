package workloads_test

import (
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/launch"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
	"testing"

	"github.com/gomlx/compute/dtypes"
)

func TestFLOPsAndBytes(t *testing.T) {
	for _, tc := range []struct {
		name         string
		w            workloads.Counter
		flops, bytes float64
	}{
		{"matmul square f32", workloads.Square(1024, dtypes.Float32), 2 * 1024 * 1024 * 1024, 3 * 1024 * 1024 * 4},
		{"matmul rect bf16", workloads.MatMul{M: 2, K: 3, N: 5, Type: dtypes.BFloat16}, 2 * 2 * 3 * 5, (6 + 15 + 10) * 2},
		{"matmul f64", workloads.MatMul{M: 4, K: 4, N: 4, Type: dtypes.Float64}, 128, 48 * 8},
		// 4096² in 2 bytes: 2·4096³ / (2·3·4096²) ≈ 1365 FLOPs per byte, the figure of the source text.
		{"matmul 4096 bf16", workloads.Square(4096, dtypes.BFloat16), 2 * 4096 * 4096 * 4096, 6 * 4096 * 4096},
		{"layernorm f32", membound.LayerNorm{Rows: 8, Cols: 16, Type: dtypes.Float32}, 7 * 8 * 16, (2*8*16 + 2*16) * 4},
		{"layernorm bf16", membound.LayerNorm{Rows: 8192, Cols: 4096, Type: dtypes.BFloat16}, 7 * 8192 * 4096, (2*8192*4096 + 2*4096) * 2},
		{"elementwise f32", membound.Elementwise{N: 1000, Type: dtypes.Float32}, 2000, 8000},
		{"copy f16", membound.Copy{N: 1000, Type: dtypes.Float16}, 0, 4000},
		{"transfer h2d", membound.Transfer{Size: 12345, Direction: membound.HostToDevice}, 0, 12345},
		{"transfer d2h", membound.Transfer{Size: 1 << 20, Direction: membound.DeviceToHost}, 0, 1 << 20},
		// MLP 10→20→20→5, batch 4: forward 2·4·(10·20 + 20·20 + 20·5) = 5600, total 3× = 16800.
		// Memory (f32): params 10·20+20 + 20·20+20 + 20·5+5 = 745 → 2980 B; activations 4·(20+20+5)·4 = 720 B;
		// batch 4·(10+5)·4 = 240 B. Bytes = 2·2980 + 0 + 240 + 2·720 = 7640.
		// Its forward pass alone: 5600 FLOPs; bytes = 4·(745 parameters + 4·(10+5) batch values) = 3220.
		{"mlp forward", workloads.MLPForward{Batch: 4, In: 10, Hidden: 20, Out: 5, Depth: 2}, 5600, 3220},
		// Tied forward 2×3, 4 layers: 4·(2·2·3² + 2·2·3) = 192 FLOPs; fused 4·(2·2·3 + 3² + 3) = 96 B,
		// unfused 4·4·(6·2·3 + 3² + 3) = 768 B.
		{"tied forward fused", launch.TiedForward{Batch: 2, Width: 3, Layers: 4, Fused: true}, 192, 96},
		{"tied forward unfused", launch.TiedForward{Batch: 2, Width: 3, Layers: 4}, 192, 768},
		{"mlp sgd f32", workloads.MLP{Batch: 4, In: 10, Hidden: 20, Out: 5, Depth: 2, Type: dtypes.Float32}, 16800, 7640},
		// Adam adds 2·2980 of state, read and written: + 2·5960.
		{"mlp adam f32", workloads.MLP{Batch: 4, In: 10, Hidden: 20, Out: 5, Depth: 2, Type: dtypes.Float32, Optimizer: workloads.Adam}, 16800, 7640 + 2*5960},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.w.FLOPs(); got != tc.flops {
				t.Errorf("FLOPs() = %g, want %g", got, tc.flops)
			}
			if got := tc.w.Bytes(); got != tc.bytes {
				t.Errorf("Bytes() = %g, want %g", got, tc.bytes)
			}
		})
	}
}

func TestIntensityMatchesSourceText(t *testing.T) {
	// "about 1,365 FLOPs per byte" for a 4096² GEMM in a 2-byte format; LayerNorm "around one FLOP per
	// byte or less".
	mm := workloads.Square(4096, dtypes.BFloat16)
	if i := mm.FLOPs() / mm.Bytes(); i < 1365 || i > 1366 {
		t.Errorf("matmul intensity = %.1f, want ≈1365.3", i)
	}
	ln := membound.LayerNorm{Rows: 8192, Cols: 4096, Type: dtypes.Float32}
	if i := ln.FLOPs() / ln.Bytes(); i > 1 {
		t.Errorf("layernorm intensity = %.2f, want ≤ 1", i)
	}
}

func TestMLPAccounting(t *testing.T) {
	for _, tc := range []struct {
		name           string
		w              workloads.MLP
		params         int64
		forward, exact float64
		mem            workloads.Memory
	}{
		{
			name: "linear model", w: workloads.MLP{Batch: 2, In: 3, Out: 4, Type: dtypes.Float32},
			params: 3*4 + 4, forward: 2 * 2 * 12, exact: 3*48 - 2*2*3*4,
			mem: workloads.Memory{Parameters: 16 * 4, Gradients: 16 * 4, Activations: 2 * 4 * 4, Batch: 2 * 7 * 4},
		},
		{
			name: "depth 2 adam f32", w: workloads.MLP{Batch: 4, In: 10, Hidden: 20, Out: 5, Depth: 2, Type: dtypes.Float32, Optimizer: workloads.Adam},
			params: 745, forward: 5600, exact: 16800 - 2*4*10*20,
			mem: workloads.Memory{Parameters: 2980, Gradients: 2980, OptimizerState: 5960, Activations: 720, Batch: 240},
		},
		{
			// Mixed precision: parameters, gradients and Adam's moments in float32, activations and batch in bf16.
			name: "depth 1 adam bf16", w: workloads.MLP{Batch: 8, In: 4, Hidden: 6, Out: 2, Depth: 1, Type: dtypes.BFloat16, Optimizer: workloads.Adam},
			params: 4*6 + 6 + 6*2 + 2, forward: 2 * 8 * (24 + 12), exact: 3*576 - 2*8*4*6,
			mem: workloads.Memory{Parameters: 44 * 4, Gradients: 44 * 4, OptimizerState: 88 * 4, Activations: 8 * 8 * 2, Batch: 8 * 6 * 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.w
			if got := w.NumParams(); got != tc.params {
				t.Errorf("NumParams() = %d, want %d", got, tc.params)
			}
			if got := w.ForwardFLOPs(); got != tc.forward {
				t.Errorf("ForwardFLOPs() = %g, want %g", got, tc.forward)
			}
			if got := w.FLOPs(); got != 3*tc.forward {
				t.Errorf("FLOPs() = %g, want 3 × forward = %g", got, 3*tc.forward)
			}
			if got := w.ExactFLOPs(); got != tc.exact {
				t.Errorf("ExactFLOPs() = %g, want %g", got, tc.exact)
			}
			if got := w.Memory(); got != tc.mem {
				t.Errorf("Memory() = %+v, want %+v", got, tc.mem)
			}
			m := w.Memory()
			if m.Total() != m.Parameters+m.Gradients+m.OptimizerState+m.Activations+m.Batch {
				t.Errorf("Total() = %d is not the sum of the parts", m.Total())
			}
		})
	}
}
