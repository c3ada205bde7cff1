package hlo

import (
	"os"
	"testing"
)

// The MLP step of lesson 01 (batch 512, 64 inputs, two hidden layers of 64, 10 outputs, SGD) as
// xla:cpu compiles it: every kernel is read, the five matrix products are found with their shapes,
// and the bytes of a kernel are its operands plus its result.
func TestKernelsOfMLPStep(t *testing.T) {
	b, err := os.ReadFile("testdata/mlp512x64.cpu_after_optimizations.txt")
	if err != nil {
		t.Fatal(err)
	}
	ks, err := KernelsOf(string(b))
	if err != nil {
		t.Fatal(err)
	}
	n, err := CountKernels(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(ks) != n.Total {
		t.Fatalf("KernelsOf found %d kernels, CountKernels %d", len(ks), n.Total)
	}
	byName := map[string]Kernel{}
	classes := map[string]int{}
	for _, k := range ks {
		byName[k.Name] = k
		classes[k.Class]++
		if k.Bytes <= 0 || k.DType != "f32" {
			t.Errorf("%s: %v bytes, dtype %q", k.Name, k.Bytes, k.DType)
		}
	}
	tests := []struct {
		name  string
		class string
		dot   Dot
		flops float64
		bytes float64
	}{
		// forward product of the first layer: x[512,64] · W[64,64] → [512,64]
		{"ynn_fusion.8", ClassGEMM, Dot{1, 512, 64, 64}, 2 * 512 * 64 * 64, 4 * (512*64 + 64*64 + 512*64)},
		// a weight gradient: the contraction runs over the batch, x[512,64]ᵀ · δ[512,64] → [64,64]
		{"dot", ClassGEMM, Dot{1, 64, 64, 512}, 2 * 512 * 64 * 64, 4 * (512*64 + 512*64 + 64*64)},
		// bias + tanh on [512,64]: an add and a tanh per element (the bias is broadcast in place)
		{"add_tanh_fusion.1", ClassElementwise, Dot{}, 2 * 512 * 64, 4 * (512*64 + 64 + 512*64)},
		// the bias gradient: a sum over the batch
		{"ynn_fusion.1", ClassReduction, Dot{}, 512 * 10, 4 * (512*10 + 1 + 10)},
	}
	for _, tc := range tests {
		k, ok := byName[tc.name]
		if !ok {
			t.Errorf("no kernel %s", tc.name)
			continue
		}
		if k.Class != tc.class || k.FLOPs != tc.flops || k.Bytes != tc.bytes {
			t.Errorf("%s: class %q, %v FLOPs, %v B; want %q, %v, %v", tc.name, k.Class, k.FLOPs, k.Bytes, tc.class, tc.flops, tc.bytes)
		}
		if tc.dot != (Dot{}) && (len(k.Dots) != 1 || k.Dots[0] != tc.dot) {
			t.Errorf("%s: dots %v, want %v", tc.name, k.Dots, tc.dot)
		}
	}
	if classes[ClassGEMM] != 8 {
		t.Errorf("classes %v: want the 8 matrix products of a 3-layer MLP step (3 forward, 3 weight gradients, 2 input gradients)", classes)
	}
}

func TestShapesOf(t *testing.T) {
	tests := []struct {
		typ   string
		bytes float64
		bad   bool
	}{
		{"f32[512,64]{1,0}", 512 * 64 * 4, false},
		{"f32[]", 4, false},
		{"(f32[8,4]{1,0}, s8[0]{0})", 128, false},
		{"bf16[2,3]", 12, false},
		{"(s32[], /*index=1*/f32[8]{0})", 36, false},
		{"q9[4]", 0, true},
		{"", 0, true},
	}
	for _, tc := range tests {
		s, err := shapesOf(tc.typ)
		if (err != nil) != tc.bad {
			t.Errorf("shapesOf(%q) error %v, want error %v", tc.typ, err, tc.bad)
			continue
		}
		total := 0.0
		for _, x := range s {
			total += x.bytes()
		}
		if total != tc.bytes {
			t.Errorf("shapesOf(%q): %v B, want %v", tc.typ, total, tc.bytes)
		}
	}
}

func TestOperandNames(t *testing.T) {
	got := operandNames("f32[4]{0} %a.1, %b, /*index=2*/f32[2,2]{1,0} %c")
	if len(got) != 3 || got[0] != "a.1" || got[1] != "b" || got[2] != "c" {
		t.Errorf("operandNames = %q", got)
	}
}
