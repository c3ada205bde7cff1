package gpumodel

import (
	"strings"
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

func step(batch, hidden int) workloads.MLP {
	return workloads.MLP{Batch: batch, In: 784, Hidden: hidden, Out: 10, Depth: 2, Type: dtypes.Float32}
}

func TestBandIsOrderedAndLabeled(t *testing.T) {
	m := Default()
	for _, tc := range []struct {
		name string
		w    Work
	}{
		{"step 1×64", MLPStep(step(1, 64), 0, "")},
		{"step 512×2048", MLPStep(step(512, 2048), 0, "")},
		{"matmul 8", MatMul(8, 8, 8, "float32", 3*64*4)},
		{"matmul 8192 bf16", MatMul(8192, 8192, 8192, "bfloat16", 3*8192*8192*2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := m.Estimate(tc.w)
			if !(e.Low > 0 && e.Low < e.High) {
				t.Fatalf("band %v – %v is not ordered", e.Low, e.High)
			}
			if e.Mid() < e.Low || e.Mid() > e.High {
				t.Errorf("Mid %v outside the band", e.Mid())
			}
			for _, s := range []string{"model", "not a measurement", "–"} {
				if !strings.Contains(e.Label(), s) {
					t.Errorf("Label %q lacks %q", e.Label(), s)
				}
			}
			if !strings.Contains(e.Note(), "not a measurement") || !strings.Contains(e.Note(), "kernel(s)") {
				t.Errorf("Note lacks its assumptions: %q", e.Note())
			}
			all := strings.Join(e.Assumptions(), "\n")
			for _, s := range []string{"CUDA graph", "SMs", "tiles", "kernels per execution", "PCIe Gen5"} {
				if !strings.Contains(all, s) {
					t.Errorf("assumptions lack %q:\n%s", s, all)
				}
			}
		})
	}
}

// The race's GPU lane must not be a constant: the band moves across the slider grid.
func TestStepBandGrowsWithSize(t *testing.T) {
	m := Default()
	small := m.Estimate(MLPStep(step(1, 16), 0, ""))
	big := m.Estimate(MLPStep(step(512, 2048), 0, ""))
	if small.Bound != "launch-bound" {
		t.Errorf("batch 1 × hidden 16 is %s, want launch-bound", small.Bound)
	}
	if big.Low < 2*small.Low {
		t.Errorf("batch 512 × hidden 2048 (%v) should take well over batch 1 × 16 (%v)", big.Band(), small.Band())
	}
	if huge := m.Estimate(MLPStep(step(1<<16, 8192), 0, "")); huge.Bound != "compute-bound" {
		t.Errorf("a huge step is %s, want compute-bound", huge.Bound)
	}
}

// Launches overlap execution: the host issues the kernels queued behind a long GEMM while it runs,
// so neither end adds k × issue to the kernels' time on the GPU.
func TestLaunchesOverlap(t *testing.T) {
	m := Default()
	w := MatMul(8192, 8192, 8192, "float32", 0)
	w.Kernels = 100
	e := m.Estimate(w)
	for end, a := range []Range{{m.A.Issue.Low, m.A.Floor.Low}, {m.A.Issue.High, m.A.Floor.High}} {
		serial := e.Device[end] + e.Launch[end] + []float64{m.A.PerRun.Low, m.A.PerRun.High}[end]
		got := []time.Duration{e.Low, e.High}[end].Seconds()
		if got >= serial-0.5*e.Launch[end] {
			t.Errorf("end %d: %v adds the launches (%v each) to the device time serially (%v)", end, got, a.Low, serial)
		}
	}
}

// Wave quantization: a product with few output tiles fills few SMs, and fill grows with size.
func TestWaveQuantization(t *testing.T) {
	m := Default()
	for _, tc := range []struct {
		m, n         int
		tiles, waves int
	}{
		{1, 64, 1, 1},
		{256, 256, 4, 1},
		{128 * 12, 128 * 11, 132, 1},
		{128 * 12, 128*11 + 1, 144, 2},
	} {
		e := m.Estimate(MatMul(tc.m, tc.n, 512, "float32", 0))
		if e.Tiles != tc.tiles || e.Waves != tc.waves {
			t.Errorf("%d×%d: %d tiles in %d waves, want %d in %d", tc.m, tc.n, e.Tiles, e.Waves, tc.tiles, tc.waves)
		}
	}
	if f := m.Estimate(MatMul(1, 64, 64, "float32", 0)).Fill; f > 0.01 {
		t.Errorf("batch-1 product fills %.3f of the SMs, want < 1%%", f)
	}
}

func TestAgainst(t *testing.T) {
	e := Default().Estimate(MLPStep(step(1, 64), 0, ""))
	for _, tc := range []struct {
		measured time.Duration
		want     string
		sign     int
	}{
		{e.Low / 2, "below", -1},
		{e.Mid(), "inside", 0},
		{e.High * 2, "above", 1},
	} {
		got := e.Against(tc.measured, "recorded on NVIDIA H200")
		if !strings.Contains(got, tc.want) {
			t.Errorf("Against(%v) = %q, want %q", tc.measured, got, tc.want)
		}
		if err := e.Error(tc.measured); (err < 0 && tc.sign >= 0) || (err > 0 && tc.sign <= 0) || (err == 0 && tc.sign != 0) {
			t.Errorf("Error(%v) = %v, want sign %d", tc.measured, err, tc.sign)
		}
	}
}

func TestRingAllReduce(t *testing.T) {
	tests := []struct {
		link  Link
		bytes float64
		n     int
	}{
		{NVLinkH200, 1e9, 8},
		{Net400G, 4e8, 4},
		{Net100G, 1e6, 2},
	}
	for _, tc := range tests {
		lo, hi := tc.link.RingAllReduce(tc.bytes, tc.n)
		// Independent check: the bandwidth term alone at full efficiency is a lower bound.
		floor := 2 * float64(tc.n-1) / float64(tc.n) * tc.bytes / tc.link.BytesPerS
		if lo.Seconds() < floor || hi <= lo {
			t.Errorf("%s: band %v–%v, bandwidth floor %gs", tc.link.Name, lo, hi, floor)
		}
		if !strings.Contains(tc.link.Label(tc.bytes, tc.n), "not a measurement") {
			t.Errorf("label %q", tc.link.Label(tc.bytes, tc.n))
		}
	}
	if lo, hi := NVLinkH200.RingAllReduce(1e9, 1); lo != 0 || hi != 0 {
		t.Errorf("one GPU: %v–%v", lo, hi)
	}
}

// A network's all-reduce pays the network's latency per ring step, not NCCL's NVLink constants,
// and the rule printed beside the bands says it is a model.
func TestAllReduceOnANetwork(t *testing.T) {
	const steps = 2 * (8 - 1)
	for _, l := range []Link{Net400G, Net100G} {
		lo, hi, algo := l.AllReduce(1<<10, 8)
		if lo.Seconds() < steps*l.Latency.Low || hi.Seconds() < steps*l.Latency.High || !strings.HasPrefix(algo, "ring") {
			t.Errorf("%s, 1 KiB over 8 GPUs: %v – %v by %s; want a ring at ≥ %d × the link's %g – %g s per step", l.Name, lo, hi, algo, steps, l.Latency.Low, l.Latency.High)
		}
	}
	if r := AllReduceRule(); !strings.Contains(r, "not a measurement") || !strings.Contains(r, "NVLS") {
		t.Errorf("AllReduceRule %q", r)
	}
}

func TestGPTStepWork(t *testing.T) {
	c := gpt.GPT{Vocab: 100, Context: 256, Batch: 64, Embed: 256, Layers: 4, Heads: 8}
	w := GPTStep(c, 0, "")
	if w.Kernels != GPTStepKernelsAssumed(c) || w.KernelsFrom != "assumed: 40 per layer + 30" {
		t.Errorf("without a count: %d kernels from %q, want the assumed %d", w.Kernels, w.KernelsFrom, GPTStepKernelsAssumed(c))
	}
	if counted := GPTStep(c, 665, "counted on xla:cpu"); counted.Kernels != 665 || counted.KernelsFrom != "counted on xla:cpu" {
		t.Errorf("with a count: %d kernels from %q", counted.Kernels, counted.KernelsFrom)
	}
	var f float64
	for _, g := range w.GEMMs {
		f += g.FLOPs()
	}
	// The stacked backward weight-gradient products of batched attention over-count nothing: the
	// GEMM FLOPs add up to the step's count.
	if d := f/c.FLOPs() - 1; d > 1e-9 || d < -1e-9 {
		t.Errorf("GEMM FLOPs %g, step FLOPs %g", f, c.FLOPs())
	}
	e := Default().Estimate(w)
	if e.Low <= 0 || e.High < e.Low {
		t.Errorf("band %v–%v", e.Low, e.High)
	}
}

// Versus says how far a GPU measurement lies from the band, signed, with the model's label.
func TestVersus(t *testing.T) {
	e := Default().Estimate(MatMul(4096, 4096, 4096, "float32", 3*4096*4096*4))
	for _, tc := range []struct {
		name     string
		measured time.Duration
		recorded bool
		want     []string
	}{
		{"inside", (e.Low + e.High) / 2, true, []string{"model vs recording: +0%", "inside the model's band"}},
		{"above", e.High * 3 / 2, true, []string{"model vs recording: +50%", "above the model's band", "optimistic"}},
		{"below", e.Low / 2, false, []string{"model vs measurement: -50%", "below the model's band", "pessimistic"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := e.Versus(tc.measured, tc.recorded, "xla:cuda recorded on NVIDIA H200")
			for _, w := range append(tc.want, "not a measurement", "H200 SXM model", "issue each") {
				if !strings.Contains(got, w) {
					t.Errorf("Versus = %q, lacks %q", got, w)
				}
			}
		})
	}
}
