package gpumodel

import (
	"math"
	"testing"
)

// Kernels run one after another: a memory-bound kernel cannot hide under a compute-bound GEMM, so
// the step is at least the sum of their own rooflines, not the roofline of the summed work.
func TestKernelsDoNotHideUnderEachOther(t *testing.T) {
	m := Default()
	gemm := GEMM{M: 8192, N: 8192, K: 8192}
	seq := []Kernel{
		{Name: "gemm", Class: ClassGEMM, FLOPs: gemm.FLOPs(), Bytes: gemm.Bytes(4), GEMMs: []GEMM{gemm}},
		{Name: "softmax", Class: ClassElementwise, FLOPs: 5 * 8192 * 8192, Bytes: 2 * 4 * 8192 * 8192 * 8},
	}
	e := m.Estimate(Work{What: "gemm + memory-bound kernel", Precision: "tf32", Sequence: seq, KernelsFrom: "given"})
	if e.Kernels[0].Bound != "compute-bound" || e.Kernels[1].Bound != "memory-bound" {
		t.Fatalf("bounds %s, %s; want compute-bound then memory-bound", e.Kernels[0].Bound, e.Kernels[1].Bound)
	}
	for end, low := range []float64{e.Low.Seconds(), e.High.Seconds()} {
		sum := e.Kernels[0].Time[end] + e.Kernels[1].Time[end]
		roofline := math.Max(e.Compute[end], e.Memory[end])
		if low < sum || low <= roofline*1.1 {
			t.Errorf("end %d: %v, want at least Σ max(Cᵢ, Mᵢ) = %v, well above max(ΣC, ΣM) = %v", end, low, sum, roofline)
		}
	}
	if e.Work.Kernels != 2 {
		t.Errorf("kernels %d, want the sequence's 2", e.Work.Kernels)
	}
}

// A GEMM is charged its operand traffic: 16384×256×256 in TF32 has an intensity of about 63
// FLOP/B, below the H200's TF32 ridge (≈ 103), so it takes at least its bytes over the bandwidth.
func TestGEMMIsChargedItsOperands(t *testing.T) {
	m := Default()
	g := GEMM{M: 16384, N: 256, K: 256}
	if i := g.FLOPs() / g.Bytes(4); i < 60 || i > 66 {
		t.Fatalf("intensity %.1f FLOP/B, want ≈ 63", i)
	}
	e := m.Estimate(MatMul(g.M, g.N, g.K, "float32", g.Bytes(4)))
	if min := g.Bytes(4) / m.GPU.Bandwidth(); e.Low.Seconds() < min {
		t.Errorf("%v is faster than its bytes at full bandwidth (%v s)", e.Band(), min)
	}
	if share := g.FLOPs() / e.Low.Seconds() / m.GPU.Peak("tf32"); share > 0.6 {
		t.Errorf("the product reaches %.0f%% of the TF32 peak at the optimistic end, want ≤ 60%% (memory-limited)", 100*share)
	}
}

// Tiny kernels are bound by the host issuing them: the stream takes about k × issue.
func TestTinyKernelsAreIssueBound(t *testing.T) {
	m := Default()
	seq := make([]Kernel, 100)
	for i := range seq {
		seq[i] = Kernel{Name: "tiny", Class: ClassElementwise, FLOPs: 1024, Bytes: 8 * 1024}
	}
	e := m.Estimate(Work{What: "100 tiny kernels", Precision: "float32", Sequence: seq, KernelsFrom: "given"})
	if e.Bound != "launch-bound" {
		t.Errorf("bound %s, want launch-bound", e.Bound)
	}
	lo := 100*m.A.Issue.Low + m.A.PerRun.Low
	if got := e.Low.Seconds(); got < lo || got > lo*1.1 {
		t.Errorf("optimistic end %v, want ≈ 100 × issue + per run = %v", got, lo)
	}
	if o := e.Overhead(); o < 0.9 {
		t.Errorf("overhead share %.2f, want ≈ 1", o)
	}
}

// ByClass shares add up to one at both ends and every kernel is in one class.
func TestByClass(t *testing.T) {
	e := Default().Estimate(MLPStep(step(512, 1024), 0, ""))
	var share [2]float64
	n := 0
	for _, c := range e.ByClass() {
		n += c.Kernels
		share[0] += c.Share[0]
		share[1] += c.Share[1]
		if c.Bound == "" {
			t.Errorf("class %s has no bound", c.Class)
		}
	}
	if n != len(e.Kernels) || math.Abs(share[0]-1) > 1e-9 || math.Abs(share[1]-1) > 1e-9 {
		t.Errorf("%d of %d kernels, shares %v", n, len(e.Kernels), share)
	}
}

// The stream: a kernel starts once issued and once the one before it ends.
func TestStream(t *testing.T) {
	for _, tc := range []struct {
		times []float64
		issue float64
		want  float64
	}{
		{[]float64{10, 10, 10}, 1, 31},     // issue hides under the first kernel
		{[]float64{0.1, 0.1, 0.1}, 1, 3.1}, // issue-bound
		{nil, 1, 0},
	} {
		if got := stream(tc.times, tc.issue); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("stream(%v, %v) = %v, want %v", tc.times, tc.issue, got, tc.want)
		}
	}
}
