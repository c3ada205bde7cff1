package datasheet

import (
	"math"
	"strings"
	"testing"
)

// A driver's name finds its row; an unknown name is an error that lists the rows.
func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		name      string
		model     string
		ridgeBF16 float64
	}{
		{"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM", 989e12 / 3.35e12},
		{"NVIDIA H200", "NVIDIA H200 SXM", 989e12 / 4.8e12},
		{"NVIDIA H200 SXM", "NVIDIA H200 SXM", 989e12 / 4.8e12},
		{"H100", "NVIDIA H100 SXM", 989e12 / 3.35e12},
		{"NVIDIA A100-SXM4-80GB", "NVIDIA A100 SXM", 312e12 / 2.0e12},
		{"NVIDIA A100-SXM4-40GB", "NVIDIA A100 40GB", 312e12 / 1555e9},
	} {
		g, err := Lookup(tc.name)
		if err != nil || g.Model != tc.model {
			t.Errorf("Lookup(%q) = %q, %v", tc.name, g.Model, err)
			continue
		}
		if r := g.Ceilings.Ridge("bfloat16"); r != tc.ridgeBF16 {
			t.Errorf("%s bf16 ridge = %g, want %g", tc.model, r, tc.ridgeBF16)
		}
		if g.Bandwidth() <= 0 || g.MemoryBytes == 0 || g.PCIeBytes <= 0 || g.NVLinkBytes <= 0 {
			t.Errorf("%s lacks a memory or link figure: %+v", g.Model, g)
		}
	}
	for _, name := range []string{"GeForce 256", "NVIDIA no such GPU"} {
		if _, err := Lookup(name); err == nil || !strings.Contains(err.Error(), H100.Model) {
			t.Errorf("Lookup(%q) should be an error listing the rows, got %v", name, err)
		}
	}
}

// Each GPU's build reproduces its datasheet FP32 figure, and every figure says where it comes from.
func TestBuildGivesPeaks(t *testing.T) {
	for _, g := range GPUs {
		if got, want := g.BuiltFP32Peak(), g.Peak("float32"); math.Abs(got/want-1) > 0.01 {
			t.Errorf("%s: %d cores × 2 × %.2f GHz = %.3g FLOP/s, datasheet says %.3g", g.Model, g.CUDACores(), g.BoostGHz, got, want)
		}
		if !strings.HasPrefix(g.Source, "datasheet") || !strings.HasPrefix(g.Ceilings.Source, "datasheet") {
			t.Errorf("%s: figures must be labeled as datasheet figures, got %q and %q", g.Model, g.Source, g.Ceilings.Source)
		}
	}
	c := ServerCPU
	if got, want := float64(c.Cores*c.Lanes32*c.FMAUnits*2)*c.GHz*1e9, c.Ceilings.Peak("float32"); math.Abs(got/want-1) > 1e-9 {
		t.Errorf("the illustrative socket's build gives %.4g FLOP/s, its ceilings say %.4g", got, want)
	}
	if !strings.HasPrefix(c.Ceilings.Source, "model") {
		t.Errorf("the illustrative socket must be labeled a model, got %q", c.Ceilings.Source)
	}
}

// One Hopper SM: 128 lanes × 2 × 1.98 GHz ≈ 507 GFLOP/s; 132 of them the datasheet's 67 TFLOP/s.
func TestSMPeak(t *testing.T) {
	if p := H200.SMPeakFP32(); p < 506e9 || p > 508e9 {
		t.Errorf("SM FP32 peak = %v, want ≈ 507 GFLOP/s", p)
	}
	if tot := H200.SMPeakFP32() * float64(H200.SMs); tot < 66e12 || tot > 68e12 {
		t.Errorf("132 SMs = %v, want the datasheet's 67 TFLOP/s", tot)
	}
}
