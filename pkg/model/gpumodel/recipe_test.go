package gpumodel

import (
	"testing"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// A recipe sets the bytes of every memory-bound kernel: flash attention never writes the s×s
// scores, bf16 operands halve the GEMMs' and GELU's traffic, and a fused Adam moves 28 bytes per
// parameter in one kernel. No byte is a leftover: the Work's bytes are the sum of its kernels'.
func TestRecipeChargesEveryLayer(t *testing.T) {
	c := gpt.GPT{Vocab: 50304, Context: 1024, Batch: 8, Embed: 768, Layers: 12, Heads: 12}
	flash := GPTRecipeStep(c, BF16Autocast, 0, true)
	mat := BF16Autocast
	mat.Flash = false
	materialized := GPTRecipeStep(c, mat, 0, true)
	scores := float64(c.Batch*c.Heads) * float64(c.Context) * float64(c.Context) * 2
	if d := materialized.Bytes - flash.Bytes; d < float64(c.Layers)*4*scores {
		t.Errorf("materialized attention moves %.3g B more than flash, want at least the scores written and read (%.3g B)", d, float64(c.Layers)*4*scores)
	}
	sum, norms, adam := 0.0, 0, 0.0
	for _, k := range flash.Sequence {
		sum += k.Bytes
		if k.Class == classNorm {
			norms++
		}
		if k.Class == classOptimizer {
			adam += k.Bytes
		}
	}
	if sum != flash.Bytes {
		t.Errorf("Work.Bytes %.4g ≠ Σ kernel bytes %.4g", flash.Bytes, sum)
	}
	if want := 4*c.Layers + 2; norms != want {
		t.Errorf("%d layer-norm kernels, want %d (two per layer forward and backward, the final one both ways)", norms, want)
	}
	if want := AdamBytesPerParam * float64(c.NumParams()); adam != want {
		t.Errorf("fused Adam moves %.4g B, want 28 per parameter (%.4g)", adam, want)
	}
	f32 := GPTRecipeStep(c, Float32XLA, 0, true)
	if f32.Bytes < 1.5*flash.Bytes {
		t.Errorf("float32 with materialized attention moves %.3g B, want well above bf16 with flash (%.3g B)", f32.Bytes, flash.Bytes)
	}
	// the recipe step is modeled on the H100 close to the MFU published runs reach (the card checks it)
	run := TrainRun{GPT: c, R: BF16Autocast, GradAccum: 1, GPUs: 8, Link: nvlink(datasheet.H100)}
	lo, hi := run.MFU(Model{GPU: datasheet.H100, A: Published}, 6*float64(c.NumParams())*float64(c.Context)+12*float64(c.Layers*c.Embed*c.Context*c.Context))
	if lo < 15 || hi > 90 || hi/lo > MaxWidth {
		t.Errorf("GPT-2 small on 8 × H100: MFU %.0f–%.0f%%", lo, hi)
	}
}

// NCCL's choice: a latency-bound algorithm for small messages (ring with the LL protocol on 2
// GPUs), NVLS for large ones where the switch reduces, the simple ring for large ones where it cannot.
func TestAllReduceChoosesBySize(t *testing.T) {
	if _, _, a := NVLinkH200.AllReduce(8<<10, 2); a != "ring (LL)" {
		t.Errorf("8 KiB on 2 GPUs: %s, want ring (LL)", a)
	}
	if lo, hi, a := NVLinkH200.AllReduce(8<<10, 8); lo.Seconds() < 4e-6 || hi.Seconds() > 25e-6 {
		t.Errorf("8 KiB on 8 GPUs (%s): %v–%v, want latency-bound, 4–25 µs", a, lo, hi)
	}
	if _, _, a := NVLinkH200.AllReduce(1<<30, 8); a != "NVLS" {
		t.Errorf("1 GiB on 8 GPUs over NVSwitch: %s, want NVLS", a)
	}
	if _, _, a := nvlink(datasheet.A100).AllReduce(1<<30, 8); a != "ring (simple)" {
		t.Errorf("1 GiB on 8 A100s: %s, want ring (simple)", a)
	}
	lo, hi, _ := NVLinkH200.AllReduce(1<<30, 8)
	rlo, rhi := NVLinkH200.RingAllReduce(1<<30, 8)
	if !(lo < rlo && hi < rhi) {
		t.Errorf("NVLS %v–%v should beat the ring %v–%v at 1 GiB", lo, hi, rlo, rhi)
	}
}

// Host copies differ by direction, and a pageable buffer pays the staging copy on top.
func TestCopyByDirectionAndPinning(t *testing.T) {
	pcie := HostLinks(datasheet.H100)[0]
	const b = 1 << 30
	toDevLo, toDevHi := pcie.Copy(b, ToDevice, true)
	toHostLo, toHostHi := pcie.Copy(b, ToHost, true)
	if !(toDevHi > toHostHi && toDevLo >= toHostLo) {
		t.Errorf("host → device %v–%v should be slower than device → host %v–%v", toDevLo, toDevHi, toHostLo, toHostHi)
	}
	pagLo, pagHi := pcie.Copy(b, ToDevice, false)
	if !(pagLo > toDevLo && pagHi > toDevHi) {
		t.Errorf("pageable %v–%v should be slower than pinned %v–%v", pagLo, pagHi, toDevLo, toDevHi)
	}
	if lo, hi := pcie.Transfer(b); lo != toDevLo || hi != toDevHi {
		t.Errorf("Transfer is the pinned host → device copy")
	}
}

// The per-execution cost is paid once per execution: a loop of n GEMMs in one execution costs
// less per iteration than n executions of one.
func TestPerExecutionCostOnce(t *testing.T) {
	m := Default()
	w := MatMul(2048, 2048, 2048, "bfloat16", GEMM{M: 2048, N: 2048, K: 2048}.Bytes(2))
	one := m.Estimate(w)
	loop := m.PerIteration(w, 100)
	if d := (one.Low - loop.Low).Seconds(); d < 0.9*m.A.PerRun.Low {
		t.Errorf("one execution %v vs a loop's iteration %v: the per-execution cost (%v) should drop out", one.Band(), loop.Band(), m.A.PerRun.Low)
	}
}

// stream-K: a product just over one wave is not charged a second whole wave.
func TestStreamK(t *testing.T) {
	m := Default()
	g := GEMM{M: 133 * 128, N: 128, K: 4096} // 133 tiles on 132 SMs
	kt := m.kernelTime(Kernel{Class: ClassGEMM, FLOPs: g.FLOPs(), GEMMs: []GEMM{g}}, "bfloat16")
	one := GEMM{M: 132 * 128, N: 128, K: 4096}
	k1 := m.kernelTime(Kernel{Class: ClassGEMM, FLOPs: one.FLOPs(), GEMMs: []GEMM{one}}, "bfloat16")
	if r := kt.Compute[1] / k1.Compute[1]; r > 1.05 {
		t.Errorf("133 tiles take %.2f× the time of 132, want ≈ 1.01 (stream-K), not 2", r)
	}
}
