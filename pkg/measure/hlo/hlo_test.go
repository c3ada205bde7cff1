package hlo

import (
	"os"
	"testing"
)

func TestCountKernelsFixtures(t *testing.T) {
	tests := []struct {
		file                  string
		total, fusions, fused int
		byOpcode              map[string]int
	}{
		// XLA:CPU's optimized HLO for y ← 1.01·y + 0.5 eight times over f32[2²⁰]: one loop fusion of the
		// 16 multiplies and adds (the two broadcast constants are indexing, not counted).
		{"chain8.cpu_after_optimizations.txt", 1, 1, 16, map[string]int{"fusion": 1}},
		// Handwritten: a cuBLAS custom call, a while loop whose body holds an add and a fusion and whose
		// condition holds a compare, and a reduce (its to_apply is per element, not a kernel).
		{"loop.handwritten.txt", 5, 1, 1, map[string]int{"custom-call": 1, "add": 1, "fusion": 1, "compare": 1, "reduce": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile("testdata/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			k, err := CountKernels(string(b))
			if err != nil {
				t.Fatal(err)
			}
			if k.Total != tc.total || k.Fusions != tc.fusions || k.FusedOps != tc.fused {
				t.Errorf("got %+v, want total %d fusions %d fused ops %d", k, tc.total, tc.fusions, tc.fused)
			}
			for op, n := range tc.byOpcode {
				if k.ByOpcode[op] != n {
					t.Errorf("ByOpcode[%s] = %d, want %d (all: %v)", op, k.ByOpcode[op], n, k.ByOpcode)
				}
			}
		})
	}
}

func TestCountKernelsErrors(t *testing.T) {
	tests := []struct{ name, text string }{
		{"empty", ""},
		{"no entry", "HloModule m\n\n%f (p: f32[]) -> f32[] {\n  ROOT %p = f32[] parameter(0)\n}\n"},
		{"unclosed", "HloModule m\n\nENTRY %main (p: f32[]) -> f32[] {\n  ROOT %p = f32[] parameter(0)\n"},
		{"garbage", "HloModule m\nthis is not HLO\n"},
		{"no opcode", "ENTRY %main () -> f32[] {\n  ROOT %p = f32[]\n}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if k, err := CountKernels(tc.text); err == nil {
				t.Errorf("CountKernels(%q) = %+v, want an error", tc.text, k)
			}
		})
	}
}

func TestKernelsString(t *testing.T) {
	tests := []struct {
		k    Kernels
		want string
	}{
		{Kernels{Total: 1, Fusions: 1, FusedOps: 16, ByOpcode: map[string]int{"fusion": 1}}, "1 kernel (1 fusion of 16 ops)"},
		{Kernels{Total: 3, Fusions: 1, FusedOps: 2, ByOpcode: map[string]int{"fusion": 1, "dot": 2}}, "3 kernels (1 fusion of 2 ops) + 2 dot"},
		{Kernels{Total: 2, ByOpcode: map[string]int{"dot": 2}}, "2 kernels"},
	}
	for _, tc := range tests {
		if got := tc.k.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.k, got, tc.want)
		}
	}
}
