package gpumodel

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Measurement is one published GPU measurement the model is checked against (the model card): its
// source, the device and workload, the figure as the source states it, and the model's band for
// the same work in the same unit.
type Measurement struct {
	Title, URL, Date string // the source: title, address, date of the page or comment
	Device           string // as the source names it
	Workload         string // what was measured
	Quote            string // the figure in the source's own words
	Low, High        float64
	Unit             string // "TFLOP/s", "µs", "GB/s", "% MFU"
	// Calibrated names the model assumption this row was used to set ("" when it only checks the
	// model): a calibrated row is not independent evidence, and the card says so.
	Calibrated string
	// Miss says why the model cannot get this case right ("" when it should): the card shows the
	// miss instead of widening the model.
	Miss string
	band func() (lo, hi float64)
}

// Band is the model's band for the measurement's work, in its unit (low ≤ high).
func (m Measurement) Band() (lo, hi float64) { return m.band() }

// Inside says whether the published figure (Low…High, a single value when equal) lies in the band.
func (m Measurement) Inside() bool {
	lo, hi := m.band()
	return m.Low >= lo*(1-1e-9) && m.High <= hi*(1+1e-9)
}

// Width is the band's ratio high/low at this point.
func (m Measurement) Width() float64 {
	lo, hi := m.band()
	return hi / lo
}

// OnStream are the assumptions for kernels launched one by one on a stream (no CUDA graph): the
// Issue and Floor ranges narrowed to the stream end of Published.
func (a Assumptions) OnStream() Assumptions {
	a.Issue = Range{2.5e-6, 4e-6}
	return a
}

// AsGraph are the assumptions for kernels launched as one CUDA graph (or an XLA command buffer):
// the host issues the whole graph in one call (Issue 0, its cost inside PerRun), and a kernel
// occupies the GPU at least 0.7–1.2 µs.
func (a Assumptions) AsGraph() Assumptions {
	a.Issue = Range{0, 0}
	a.Floor = Range{0.7e-6, 1.2e-6}
	return a
}

// KernelOnly are the assumptions without the fixed costs (no per-execution cost, no launch issue, no
// floor): one kernel's own roofline, for a concept chart about the memory→compute bend of a single
// product (lesson 02). Never for a whole step or anything compared with a measurement.
func (a Assumptions) KernelOnly() Assumptions {
	a.Issue, a.Floor, a.PerRun = Range{}, Range{}, Range{}
	return a
}

// tflops is the band, in TFLOP/s, of work w on model m.
func tflops(m Model, w Work) func() (float64, float64) {
	return func() (float64, float64) {
		e := m.Estimate(w)
		return w.FLOPs / e.High.Seconds() / 1e12, w.FLOPs / e.Low.Seconds() / 1e12
	}
}

// micros is the band, in µs, of work w on model m.
func micros(m Model, w Work) func() (float64, float64) {
	return func() (float64, float64) {
		e := m.Estimate(w)
		return e.Low.Seconds() * 1e6, e.High.Seconds() * 1e6
	}
}

// chain is k kernels, each of flops and bytes.
func chain(what string, k int, flops, bytes float64) Work {
	seq := make([]Kernel, k)
	for i := range seq {
		seq[i] = Kernel{Name: "kernel", Class: ClassElementwise, FLOPs: flops, Bytes: bytes}
	}
	return Work{What: what, Precision: "float32", Sequence: seq, Kernels: k, KernelsFrom: "as the source describes it"}
}

// smallMLP is the CUDA.jl example's multi-layer perceptron at batch 16: four products, each followed
// by a broadcast. The page does not give the widths; 256 is the course's assumption (any width up to
// about 1024 keeps every kernel at its floor on these GPUs).
func smallMLP() Work {
	const batch, width = 16, 256
	g := GEMM{M: batch, N: width, K: width}
	var seq []Kernel
	for range 4 {
		seq = append(seq, Kernel{Name: "mul!", Class: ClassGEMM, FLOPs: g.FLOPs(), Bytes: g.Bytes(4), GEMMs: []GEMM{g}},
			Kernel{Name: "broadcast", Class: ClassElementwise, FLOPs: batch * width, Bytes: 2 * 4 * batch * width})
	}
	return Work{What: "4-layer MLP at batch 16", Precision: "tf32", Sequence: seq, Kernels: len(seq), KernelsFrom: "as the source describes it"}
}

// mpt1b is MPT-1B as llm-foundry benchmarks it: d_model 2048, 24 layers, 16 heads, vocabulary
// 50368, sequences of 2048, a micro-batch of 14 per GPU.
var mpt1b = workloads.GPT{Vocab: 50368, Context: 2048, Batch: 14, Embed: 2048, Layers: 24, Heads: 16}

// mfu is the band of a GPT step's MFU on model m in bf16: the step's model FLOPs ÷ the modeled time ÷
// the bf16 peak, in percent. The kernels are built from the formula's GEMMs (no compiled program).
func mfu(m Model, c workloads.GPT) func() (float64, float64) {
	return func() (float64, float64) {
		w := GPTStep(c, 0, "assumed")
		w.Precision = "bfloat16"
		e := m.Estimate(w)
		peak := m.GPU.Peak("bfloat16")
		return 100 * w.FLOPs / e.High.Seconds() / peak, 100 * w.FLOPs / e.Low.Seconds() / peak
	}
}

// allReduce is the band of the bus bandwidth (2·(n−1)/n · bytes ÷ time, nccl-tests' busbw) or of
// the time of a ring all-reduce of bytes over n GPUs on link l.
func busBW(l Link, bytes float64, n int) func() (float64, float64) {
	return func() (float64, float64) {
		lo, hi := l.RingAllReduce(bytes, n)
		f := 2 * float64(n-1) / float64(n) * bytes / 1e9
		return f / hi.Seconds(), f / lo.Seconds()
	}
}

func algBW(l Link, bytes float64, n int) func() (float64, float64) {
	return func() (float64, float64) {
		lo, hi := l.RingAllReduce(bytes, n)
		return bytes / 1e9 / hi.Seconds(), bytes / 1e9 / lo.Seconds()
	}
}

func ringMicros(l Link, bytes float64, n int) func() (float64, float64) {
	return func() (float64, float64) {
		lo, hi := l.RingAllReduce(bytes, n)
		return lo.Seconds() * 1e6, hi.Seconds() * 1e6
	}
}

// copyBW is the band, in GB/s, of a device-to-device copy of bytes on g, counted as the effective
// memory throughput T_eff of the Julia GPU workshops counts it: bytes read + bytes written ÷ time.
func copyBW(g datasheet.GPU, bytes float64) func() (float64, float64) {
	return func() (float64, float64) {
		m := Model{GPU: g, A: Published}
		e := m.Estimate(chain("device copy", 1, 0, 2*bytes))
		return 2 * bytes / 1e9 / e.High.Seconds(), 2 * bytes / 1e9 / e.Low.Seconds()
	}
}

const (
	stasTitle = "Stas Bekman, Machine Learning Engineering Open Book, “Accelerators” chapter, Maximum Achievable Matmul FLOPS comparison table (BF16)"
	stasURL   = "https://github.com/stas00/ml-engineering/blob/master/compute/accelerator/README.md#maximum-achievable-matmul-flops-comparison-table"
	juliaURL  = "https://cuda.juliagpu.org/dev/usage/graphs/"
	juliaT    = "CUDA.jl documentation, “Graphs”"
)

// Card is the model card: published measurements and the model's band for each.
func Card() []Measurement {
	H100 := datasheet.H100
	h100 := Model{GPU: H100, A: Published}
	a100 := Model{GPU: datasheet.A100, A: Published}
	mm := func(m, n, k int) Work { g := GEMM{M: m, N: n, K: k}; return MatMul(m, n, k, "bfloat16", g.Bytes(2)) }
	return []Measurement{
		{Title: stasTitle, URL: stasURL, Date: "2025 (torch 2.7.0+cu126 row)", Device: "NVIDIA H100 SXM",
			Workload: "bf16 torch.mm at its best shape 2048×2048×13312 (M×N×K), mean of 100 iterations",
			Quote:    "MAMF 794.5 (Theory 989, Efficiency 80.3%)", Low: 794.5, High: 794.5, Unit: "TFLOP/s",
			Calibrated: "the top of PeakFraction (92%)", band: tflops(h100, mm(2048, 2048, 13312))},
		{Title: stasTitle, URL: stasURL, Date: "2025 (torch 2.6.0+cu126 row)", Device: "NVIDIA A100 SXM",
			Workload: "bf16 torch.mm at its best shape 1024×10240×5120, mean of 100 iterations",
			Quote:    "MAMF 271.2 (Theory 312, Efficiency 86.9%)", Low: 271.2, High: 271.2, Unit: "TFLOP/s",
			Calibrated: "the top of PeakFraction (92%)", band: tflops(a100, mm(1024, 10240, 5120))},
		{Title: juliaT, URL: juliaURL, Date: "dev documentation, read 2026-12", Device: "not stated on the page",
			Workload: "a small multi-layer perceptron at batch 16 (four mul! each followed by a broadcast: 8 kernels, skinny 16-row products), launched normally",
			Quote:    "takes about 50 µs per evaluation when executed normally", Low: 50, High: 50, Unit: "µs",
			band: micros(Model{GPU: H100, A: Published.OnStream()}, smallMLP())},
		{Title: juliaT, URL: juliaURL, Date: "dev documentation, read 2026-12", Device: "not stated on the page",
			Workload: "the same MLP launched as one CUDA graph",
			Quote:    "but only 16 µs when it is launched as a graph", Low: 16, High: 16, Unit: "µs",
			band: micros(Model{GPU: H100, A: Published.AsGraph()}, smallMLP())},
		{Title: juliaT, URL: juliaURL, Date: "dev documentation, read 2026-12", Device: "not stated on the page",
			Workload: "10 RK4 steps of a small ODE: 80 tiny broadcast kernels on a stream",
			Quote:    "(80 broadcast kernels) goes from 260 µs", Low: 260, High: 260, Unit: "µs",
			Calibrated: "OnStream's issue range (2.5–4 µs per launch)", band: micros(Model{GPU: H100, A: Published.OnStream()}, chain("RK4", 80, 2048, 3*4*1024))},
		{Title: juliaT, URL: juliaURL, Date: "dev documentation, read 2026-12", Device: "not stated on the page",
			Workload: "the same 80 kernels as one CUDA graph",
			Quote:    "to 70 µs, with only 3.5 µs of CPU time", Low: 70, High: 70, Unit: "µs",
			Calibrated: "AsGraph's floor (0.7–1.2 µs per kernel)", band: micros(Model{GPU: H100, A: Published.AsGraph()}, chain("RK4", 80, 2048, 3*4*1024))},
		{Title: "PTsolvers/gpu-workshop-JuliaCon23 issue #7, “Bandwidth in performance testing script”", URL: "https://github.com/PTsolvers/gpu-workshop-JuliaCon23/issues/7",
			Date: "2023-07-25", Device: "NVIDIA A100 40GB (1555 GB/s datasheet)",
			Workload: "device memory copy (the workshop's reference for a memory-bound kernel)",
			Quote:    "the number used for andwidth is 1355 … I have the set the memcopy measured BW as ref here", Low: 1355, High: 1355, Unit: "GB/s",
			band: copyBW(datasheet.A100x40, 1<<30)},
		{Title: "NVIDIA/nccl issue #1455, “[SHArP] about the intranode allreduce performance with SHArP”", URL: "https://github.com/NVIDIA/nccl/issues/1455",
			Date: "2024-09-19", Device: "8 × H100 SXM (NVLink 4, NVSwitch)",
			Workload: "nccl-tests all_reduce_perf, 2–4 GB messages, NCCL_ALGO=RING",
			Quote:    "when using ALGO=RING, busbw is about 365-370 GBps when gpus from 2 to 8", Low: 365, High: 370, Unit: "GB/s busbw",
			Calibrated: "NVLink's ring efficiency (75–85% of 450 GB/s)", band: busBW(NVLinkH200, 2<<30, 8)},
		{Title: "NVIDIA/nccl issue #1455 (same thread)", URL: "https://github.com/NVIDIA/nccl/issues/1455",
			Date: "2024-09-19", Device: "8 × H100 SXM (NVLink 4, NVSwitch)",
			Workload: "the same, NCCL_ALGO=NVLS (NVLink SHARP, NCCL's default on NVSwitch systems)",
			Quote:    "algbw also increases from 258 to about 265, 270, and 273", Low: 273, High: 273, Unit: "GB/s algbw",
			Miss: "the model has only a ring; NVLS reduces in the NVSwitch, so each GPU sends its data once instead of 2·(n−1)/n times — a ring model cannot reach that", band: algBW(NVLinkH200, 2<<30, 8)},
		{Title: "NVIDIA/nccl issue #1259, “Is intra-node latency supposed to increase with the number of GPUs when using NVLink SHARP?”", URL: "https://github.com/NVIDIA/nccl/issues/1259",
			Date: "2024-04-22", Device: "HGX 8 × H100 (2 GPUs used)",
			Workload: "small all-reduce (128 B – 64 KB), NVLSTree, CUDA graphs in the benchmark",
			Quote:    "When I run with 2 GPUs the latency is approximately 6us", Low: 6, High: 6, Unit: "µs",
			Calibrated: "NVLink's per-step latency (2.5–7 µs)", band: ringMicros(NVLinkH200, 64<<10, 2)},
		{Title: "mosaicml/llm-foundry, “MPT Training Benchmarks” (scripts/train/benchmarking/README.md), H100 80GB BF16 table", URL: "https://github.com/mosaicml/llm-foundry/blob/main/scripts/train/benchmarking/README.md",
			Date: "2023 (README of the repository)", Device: "8 × H100 80GB",
			Workload: "MPT-1B training, sequence 2048, micro-batch 14, bf16, FSDP FULL_SHARD, no activation checkpointing",
			Quote:    "the 1b row at SeqLen 2048 on 8 h100_80gb: MFU 41.82", Low: 41.82, High: 41.82, Unit: "% MFU",
			Miss: "the model is optimistic for this run: it models one GPU's step (its GEMMs and a formula's memory traffic) and leaves out FSDP's parameter all-gathers and gradient reduce-scatters across the 8 GPUs and the framework's per-operator launches, which the run pays every step",
			band: mfu(h100, mpt1b)},
	}
}

// CardMarkdown is the model card as a markdown table, for lessons and lessons/AUTHORING.md.
func CardMarkdown() string {
	var b strings.Builder
	b.WriteString("| # | Published figure (source, date) | Device | Workload | Figure | H100/A100 model band | In band? |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for i, m := range Card() {
		lo, hi := m.Band()
		verdict := "yes"
		if !m.Inside() {
			verdict = "**no** — " + m.Miss
		}
		if m.Calibrated != "" {
			verdict += " (calibrated: set " + m.Calibrated + ")"
		}
		fig := fmt.Sprintf("%.4g", m.Low)
		if m.High != m.Low {
			fig += fmt.Sprintf("–%.4g", m.High)
		}
		fmt.Fprintf(&b, "| %d | “%s” — [%s](%s), %s | %s | %s | %s %s | %s–%s %s (%.1f×) | %s |\n", i+1, m.Quote, m.Title, m.URL, m.Date,
			m.Device, m.Workload, fig, m.Unit, trim3(lo), trim3(hi), m.Unit, math.Round(10*m.Width())/10, verdict)
	}
	return b.String()
}
