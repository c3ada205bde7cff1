package gpumodel

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
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
	// miss instead of widening the model. An independent row may miss its band only by less than
	// MaxMiss and only with its cause stated here.
	Miss string
	// Versions are the software versions the source states ("not stated on the page" when it
	// does not).
	Versions string
	// Kind groups the rows: "training run", "collective", "small GEMM", "host copy", "launches",
	// "GEMM", "memory".
	Kind string
	band func() (lo, hi float64)
}

// MaxMiss is the most an independent row may lie outside its band, with a stated cause.
const MaxMiss = 0.15

// MissBy is how far the published figure lies outside the band, relative to the nearer end (0
// inside).
func (m Measurement) MissBy() float64 {
	lo, hi := m.band()
	switch {
	case m.Low < lo*(1-1e-9):
		return 1 - m.Low/lo
	case m.High > hi*(1+1e-9):
		return m.High/hi - 1
	}
	return 0
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
// Issue range narrowed to the stream end, 2.5–4.5 µs (calibrated on CUDA.jl's 80 kernels at ≈3.3 µs
// each).
func (a Assumptions) OnStream() Assumptions {
	a.Issue = Range{2.5e-6, 4.5e-6}
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
	a.Issue, a.Floor, a.GEMMFloor, a.PerRun = Range{}, Range{}, Range{}, Range{}
	return a
}

// loopTFLOPs is the band, in TFLOP/s, of work w timed as the mean of n iterations of a loop
// (the per-execution cost spread over the loop: PerIteration).
func loopTFLOPs(m Model, w Work, n int) func() (float64, float64) {
	return func() (float64, float64) {
		e := m.PerIteration(w, n)
		return w.FLOPs / e.High.Seconds() / 1e12, w.FLOPs / e.Low.Seconds() / 1e12
	}
}

// kernelTFLOPs is the band, in TFLOP/s, of one GEMM kernel's own time on the device (no launch,
// no per-execution cost: what a profiler times).
func kernelTFLOPs(m Model, g GEMM, precision string) func() (float64, float64) {
	return func() (float64, float64) {
		kt := m.kernelTime(Kernel{Name: "gemm", Class: ClassGEMM, FLOPs: g.FLOPs(), Bytes: g.Bytes(elementBytes(precision)), GEMMs: []GEMM{g}}, precision)
		return g.FLOPs() / kt.Time[1] / 1e12, g.FLOPs() / kt.Time[0] / 1e12
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

// mpt is an MPT model as llm-foundry's benchmark configures it (vocabulary 50368, sequences of
// 2048) at width d, depth l, h heads and micro-batch mb.
func mpt(d, l, h, mb int) gpt.GPT {
	return gpt.GPT{Vocab: 50368, Context: 2048, Batch: mb, Embed: d, Layers: l, Heads: h}
}

// nvlink is the NVLink of g as a ring (the card's A100 and H100 runs): g's bytes per direction at
// NVLinkH200's ring efficiency.
func nvlink(g datasheet.GPU) Link {
	l := NVLinkH200
	l.Name, l.BytesPerS = g.NVLink+" ("+g.Short+")", g.NVLinkBytes
	if g.Short != "H100" && g.Short != "H200" {
		l.NVLS = Range{}
	}
	return l
}

// mptMFU is the band of an MPT row's MFU on g: 8 GPUs, FSDP FULL_SHARD, bf16 autocast (llm-foundry's
// amp_bf16) with flash attention and a fused AdamW, the MFU counted as llm-foundry counts it.
func mptMFU(g datasheet.GPU, c gpt.GPT, gradAccum int, numParams float64) func() (float64, float64) {
	return func() (float64, float64) {
		run := TrainRun{GPT: c, R: BF16Autocast, GradAccum: gradAccum, GPUs: 8, Sharded: true, Link: nvlink(g)}
		return run.MFU(Model{GPU: g, A: Published}, MPTFLOPsPerSeq(c, numParams))
	}
}

// gpt2Small is GPT-2 small (124M) as Karpathy's build-nanogpt trains it: vocabulary padded to
// 50304, 1024 tokens, a micro-batch of 64 per GPU.
var gpt2Small = gpt.GPT{Vocab: 50304, Context: 1024, Batch: 64, Embed: 768, Layers: 12, Heads: 12}

// tokensPerSecond is the band of a DDP run's tokens per second over gpus GPUs, spanning the GPUs
// given (when the source does not say which memory size it ran on).
func tokensPerSecond(c gpt.GPT, gpus int, gs ...datasheet.GPU) func() (float64, float64) {
	return func() (float64, float64) {
		lo, hi := math.Inf(1), 0.0
		for _, g := range gs {
			run := TrainRun{GPT: c, R: BF16Autocast, GradAccum: 1, GPUs: gpus, Link: nvlink(g)}
			l, h := run.TokensPerSecond(Model{GPU: g, A: Published})
			lo, hi = math.Min(lo, l), math.Max(hi, h)
		}
		return lo / 1e6, hi / 1e6
	}
}

// busBW is the band of nccl-tests' bus bandwidth (2·(n−1)/n · bytes ÷ time) of a ring all-reduce
// (NCCL_ALGO=RING) of bytes over n GPUs on link l.
func busBW(l Link, bytes float64, n int) func() (float64, float64) {
	return func() (float64, float64) {
		lo, hi := l.RingAllReduce(bytes, n)
		f := 2 * float64(n-1) / float64(n) * bytes / 1e9
		return f / hi.Seconds(), f / lo.Seconds()
	}
}

// ncclAlgBW is the band of nccl-tests' algorithm bandwidth (bytes ÷ time) of the all-reduce NCCL
// picks (AllReduce).
func ncclAlgBW(l Link, bytes float64, n int) func() (float64, float64) {
	return func() (float64, float64) {
		lo, hi, _ := l.AllReduce(bytes, n)
		return bytes / 1e9 / hi.Seconds(), bytes / 1e9 / lo.Seconds()
	}
}

// ncclMicros is the band of the time of the all-reduce NCCL picks, in µs.
func ncclMicros(l Link, bytes float64, n int) func() (float64, float64) {
	return func() (float64, float64) {
		lo, hi, _ := l.AllReduce(bytes, n)
		return lo.Seconds() * 1e6, hi.Seconds() * 1e6
	}
}

// TorchCallCost is what one eager PyTorch call adds on the host before its kernel reaches the GPU:
// 5–20 µs, the CPU side of a launch in PyTorch traces (Holistic Trace Analysis, as in LaunchSource).
// A collective timed alone between two CUDA events pays it, since the GPU idles until the launch.
var TorchCallCost = Range{5e-6, 20e-6}

// torchAlgBW is the band of the algorithm bandwidth (bytes ÷ time) of one torch.distributed
// all-reduce of bytes over n GPUs on l timed alone between CUDA events: the all-reduce NCCL picks
// (AllReduce) plus TorchCallCost.
func torchAlgBW(l Link, bytes float64, n int) func() (float64, float64) {
	return func() (float64, float64) {
		lo, hi, _ := l.AllReduce(bytes, n)
		return bytes / 1e9 / (hi.Seconds() + TorchCallCost.High), bytes / 1e9 / (lo.Seconds() + TorchCallCost.Low)
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

// hostGBs is the band, in GB/s, of one copy of bytes in direction d over g's PCIe slot, from pinned
// or pageable host memory.
func hostGBs(g datasheet.GPU, bytes float64, d Direction, pinned bool) func() (float64, float64) {
	return func() (float64, float64) {
		lo, hi := HostLinks(g)[0].Copy(bytes, d, pinned)
		return bytes / 1e9 / hi.Seconds(), bytes / 1e9 / lo.Seconds()
	}
}

const (
	stasTitle    = "Stas Bekman, Machine Learning Engineering Open Book, “Accelerators” chapter, Maximum Achievable Matmul FLOPS comparison table (BF16)"
	stasURL      = "https://github.com/stas00/ml-engineering/blob/master/compute/accelerator/README.md#maximum-achievable-matmul-flops-comparison-table"
	juliaURL     = "https://cuda.juliagpu.org/dev/usage/graphs/"
	juliaT       = "CUDA.jl documentation, “Graphs”"
	xlaTitle     = "OpenXLA, default matmul performance table (sm_90 entries), xla/service/gpu/model/matmul_interpolator_data.h"
	xlaURL       = "https://github.com/tensorflow/tensorflow/blob/372d578bb861cc5804e56d37d93aec931a59762c/third_party/xla/xla/service/gpu/model/matmul_interpolator_data.h"
	xlaDate      = "2025 (copyright header; read at tensorflow commit 372d578b)"
	xlaDevice    = "an sm_90 GPU (H100-class; the table names only the compute capability), modeled as the H100 SXM"
	xlaVer       = "XLA's GEMM emitters at that commit (the table is generated by its matmul perf-table tool)"
	mptTitle     = "mosaicml/llm-foundry, “MPT Training Benchmarks” (scripts/train/benchmarking/README.md)"
	mptURL       = "https://github.com/mosaicml/llm-foundry/blob/061f2c7ce64e655100286584a7629e2a09f827ba/scripts/train/benchmarking/README.md"
	mptDate      = "2023 (README read at commit 061f2c7)"
	mptVer       = "Composer + PyTorch FSDP (FULL_SHARD), amp_bf16; the README's own note says the tables predate its torch 2.0 update"
	mptWork      = ", sequence 2048, 8 GPUs, FSDP FULL_SHARD, amp_bf16, no activation checkpointing"
	stasARTitle  = "Stas Bekman, Machine Learning Engineering Open Book, “all-reduce on a single 8x H200 node” (network/benchmarks/results/all-reduce-8xH200.md)"
	stasARURL    = "https://github.com/stas00/ml-engineering/blob/c53741b8b7dcc17b152757f104398c6dd6f231b3/network/benchmarks/results/all-reduce-8xH200.md"
	stasARDate   = "measured 2026-08-04 (page committed 2026-08-05)"
	stasARDevice = "8 × NVIDIA H200 SXM (NVLink 4, NVSwitch, all pairs NV18)"
	stasARVer    = "torch 2.9.1+cu130, CUDA 13.0, NCCL 2.27.7; all_reduce_bench.py as of commit 3b2d999 (one call per trial)"
	h100Note     = "the same llm-foundry configurations reach 57–64% MFU on A100s in the same README but 35–46% on H100s, whose 2023 software reached a smaller share of the H100's peak — a published spread the band has to hold"
)

// mptRow is one row of llm-foundry's MPT benchmark tables: name at width d, depth l, h heads,
// micro-batch mb and acc accumulation steps on 8 × g, numParams as the table counts them, the
// published MFU and the row in the table's own words.
func mptRow(g datasheet.GPU, name string, d, l, h, mb, acc int, numParams, mfu float64, quote string) Measurement {
	table, device, accum := "A100 80GB table", "8 × A100 80GB", fmt.Sprintf("%d accumulation steps", acc)
	if g.Short == "H100" {
		table, device = "H100 80GB BF16 table", "8 × H100 80GB"
	}
	if acc == 1 {
		accum = "no accumulation"
	}
	return Measurement{Title: mptTitle + ", " + table, URL: mptURL, Date: mptDate, Device: device, Versions: mptVer, Kind: "training run",
		Workload: fmt.Sprintf("%s training%s, micro-batch %d, %s", name, mptWork, mb, accum),
		Quote:    quote, Low: mfu, High: mfu, Unit: "% MFU", band: mptMFU(g, mpt(d, l, h, mb), acc, numParams)}
}

// calibrated marks m as a calibration row: what names the assumption that was set on it.
func calibrated(m Measurement, what string) Measurement {
	m.Calibrated = what
	return m
}

// Card is the model card: published measurements and the model's band for each. Rows with
// Calibrated set were used to set an assumption; the others check the model.
func Card() []Measurement {
	H100, A100 := datasheet.H100, datasheet.A100
	h100 := Model{GPU: H100, A: Published}
	a100 := Model{GPU: A100, A: Published}
	mm := func(m, n, k int) Work { g := GEMM{M: m, N: n, K: k}; return MatMul(m, n, k, "bfloat16", g.Bytes(2)) }
	xla := func(m, n, k int, prec, quote string, tf float64, cal string) Measurement {
		g := GEMM{M: m, N: n, K: k}
		dt := map[string]string{"bfloat16": "bf16xbf16->bf16", "tf32": "f32xf32->f32 (TF32 tensor cores, whose peak, 494 TFLOP/s, is above the 67 TFLOP/s float32 CUDA-core peak)"}[prec]
		return Measurement{Title: xlaTitle, URL: xlaURL, Date: xlaDate, Device: xlaDevice, Versions: xlaVer, Kind: "small GEMM",
			Workload: fmt.Sprintf("one %d×%d×%d (M×N×K) GEMM, %s, one kernel", m, n, k, dt),
			Quote:    quote, Low: tf, High: tf, Unit: "TFLOP/s", Calibrated: cal, band: kernelTFLOPs(h100, g, prec)}
	}
	return []Measurement{
		// ---- calibration rows ----
		{Title: stasTitle, URL: stasURL, Date: "2025 (torch 2.7.0+cu126 row)", Device: "NVIDIA H100 SXM", Versions: "torch 2.7.0+cu126", Kind: "GEMM",
			Workload: "bf16 torch.mm at its best shape 2048×2048×13312 (M×N×K), mean of 100 iterations",
			Quote:    "MAMF 794.5 (Theory 989, Efficiency 80.3%)", Low: 794.5, High: 794.5, Unit: "TFLOP/s",
			Calibrated: "the H100's cap on the top of PeakFraction (80.3% + 2 points)", band: loopTFLOPs(h100, mm(2048, 2048, 13312), 100)},
		{Title: stasTitle, URL: stasURL, Date: "2025 (torch 2.6.0+cu126 row)", Device: "NVIDIA A100 SXM", Versions: "torch 2.6.0+cu126", Kind: "GEMM",
			Workload: "bf16 torch.mm at its best shape 1024×10240×5120, mean of 100 iterations",
			Quote:    "MAMF 271.2 (Theory 312, Efficiency 86.9%)", Low: 271.2, High: 271.2, Unit: "TFLOP/s",
			Calibrated: "the top of PeakFraction (86.9% + 2 points)", band: loopTFLOPs(a100, mm(1024, 10240, 5120), 100)},
		{Title: juliaT, URL: juliaURL, Date: "dev documentation, read 2026-12", Device: "not stated on the page", Versions: "CUDA.jl dev documentation", Kind: "launches",
			Workload: "10 RK4 steps of a small ODE: 80 tiny broadcast kernels on a stream",
			Quote:    "(80 broadcast kernels) goes from 260 µs", Low: 260, High: 260, Unit: "µs",
			Calibrated: "OnStream's issue range (2.5–4.5 µs per launch)", band: micros(Model{GPU: H100, A: Published.OnStream()}, chain("RK4", 80, 2048, 3*4*1024))},
		{Title: juliaT, URL: juliaURL, Date: "dev documentation, read 2026-12", Device: "not stated on the page", Versions: "CUDA.jl dev documentation", Kind: "launches",
			Workload: "the same 80 kernels as one CUDA graph",
			Quote:    "to 70 µs, with only 3.5 µs of CPU time", Low: 70, High: 70, Unit: "µs",
			Calibrated: "AsGraph's floor (0.7–1.2 µs per kernel)", band: micros(Model{GPU: H100, A: Published.AsGraph()}, chain("RK4", 80, 2048, 3*4*1024))},
		{Title: "PTsolvers/gpu-workshop-JuliaCon23 issue #7, “Bandwidth in performance testing script”", URL: "https://github.com/PTsolvers/gpu-workshop-JuliaCon23/issues/7",
			Date: "2023-07-25", Device: "NVIDIA A100 40GB (1555 GB/s datasheet)", Versions: "not stated (CUDA.jl, JuliaCon 2023 workshop)", Kind: "memory",
			Workload: "device memory copy (the workshop's reference for a memory-bound kernel)",
			Quote:    "the number used for andwidth is 1355 … I have the set the memcopy measured BW as ref here", Low: 1355, High: 1355, Unit: "GB/s",
			Calibrated: "the top of BWFraction (90%)", band: copyBW(datasheet.A100x40, 1<<30)},
		{Title: "NVIDIA/nccl issue #1455, “[SHArP] about the intranode allreduce performance with SHArP”", URL: "https://github.com/NVIDIA/nccl/issues/1455",
			Date: "2024-09-19", Device: "8 × H100 SXM (NVLink 4, NVSwitch)", Versions: "not stated in the comment read", Kind: "collective",
			Workload: "nccl-tests all_reduce_perf, 2–4 GB messages, NCCL_ALGO=RING",
			Quote:    "when using ALGO=RING, busbw is about 365-370 GBps when gpus from 2 to 8", Low: 365, High: 370, Unit: "GB/s busbw",
			Calibrated: "NVLink's ring efficiency (75–85% of 450 GB/s)", band: busBW(NVLinkH200, 2<<30, 8)},
		{Title: "NVIDIA/nccl-tests issue #212, “H100 all reduce performance is poor” (maintainer's answer)", URL: "https://github.com/NVIDIA/nccl-tests/issues/212",
			Date: "2024-05-06", Device: "8 × H100 SXM (NVSwitch)", Versions: "NCCL with NVLink SHARP (NVLS) on by default for all-reduce", Kind: "collective",
			Workload: "nccl-tests all_reduce_perf at large sizes (above 256 MB), NCCL's default algorithm (NVLS)",
			Quote:    "On 8 GPUs, you should reach a peak busBw of ~480GB/s (algbw ~275GB/s)", Low: 275, High: 275, Unit: "GB/s algbw",
			Calibrated: "NVLS's share of the link (56–64% of 450 GB/s as algorithm bandwidth)", band: ncclAlgBW(NVLinkH200, 8<<30, 8)},
		xla(512, 256, 256, "bfloat16", "m: 512 n: 256 k: 256 … bf16xbf16->bf16 value: 11459846994535", 11.46, "GEMMFloor (4–6 µs: 5.9 µs here)"),
		calibrated(mptRow(H100, "MPT-760M", 1536, 24, 12, 24, 2, 760470528, 34.9, "760m | 2048 | 8 | h100_80gb | 34.9 | 34.9"), "the bottom of PeakFraction (41%): "+h100Note),

		// ---- independent rows ----
		{Title: juliaT, URL: juliaURL, Date: "dev documentation, read 2026-12", Device: "not stated on the page", Versions: "CUDA.jl dev documentation", Kind: "launches",
			Workload: "a small multi-layer perceptron at batch 16 (four mul! each followed by a broadcast: 8 kernels, skinny 16-row products), launched normally",
			Quote:    "takes about 50 µs per evaluation when executed normally", Low: 50, High: 50, Unit: "µs",
			band: micros(Model{GPU: H100, A: Published.OnStream()}, smallMLP())},
		{Title: juliaT, URL: juliaURL, Date: "dev documentation, read 2026-12", Device: "not stated on the page", Versions: "CUDA.jl dev documentation", Kind: "launches",
			Workload: "the same MLP launched as one CUDA graph",
			Quote:    "but only 16 µs when it is launched as a graph", Low: 16, High: 16, Unit: "µs",
			Miss: "the page states neither the GPU nor the MLP's widths (256 assumed): on the model's H100 a 16×256×256 TF32 product costs about 2 µs, so 8 kernels and one graph launch start just above 16 µs", band: micros(Model{GPU: H100, A: Published.AsGraph()}, smallMLP())},
		xla(1024, 256, 1024, "bfloat16", "m: 1024 n: 256 k: 1024 … bf16xbf16->bf16 value: 68338965376782", 68.34, ""),
		xla(1024, 256, 1024, "tf32", "m: 1024 n: 256 k: 1024 … f32xf32->f32 value: 39709386982248", 39.71, ""),
		xla(1024, 1024, 2048, "bfloat16", "m: 1024 n: 1024 k: 2048 … bf16xbf16->bf16 value: 349981037809648", 349.98, ""),
		xla(2048, 2048, 2048, "bfloat16", "m: 2048 n: 2048 k: 2048 … bf16xbf16->bf16 value: 631984593290170", 631.98, ""),
		xla(2048, 2048, 2048, "tf32", "m: 2048 n: 2048 k: 2048 … f32xf32->f32 value: 329166714898835", 329.17, ""),
		{Title: "NVIDIA/nccl issue #1455 (same thread)", URL: "https://github.com/NVIDIA/nccl/issues/1455",
			Date: "2024-09-19", Device: "8 × H100 SXM (NVLink 4, NVSwitch)", Versions: "not stated in the comment read", Kind: "collective",
			Workload: "nccl-tests all_reduce_perf, 2–4 GB messages, NCCL_ALGO=NVLS (NVLink SHARP, NCCL's default on NVSwitch systems), 8 GPUs",
			Quote:    "algbw also increases from 258 to about 265, 270, and 273", Low: 273, High: 273, Unit: "GB/s algbw",
			band: ncclAlgBW(NVLinkH200, 2<<30, 8)},
		{Title: "NVIDIA/nccl issue #1259, “Is intra-node latency supposed to increase with the number of GPUs when using NVLink SHARP?”", URL: "https://github.com/NVIDIA/nccl/issues/1259",
			Date: "2024-04-22", Device: "HGX 8 × H100 (2 GPUs used)", Versions: "not stated in the comment read", Kind: "collective",
			Workload: "small all-reduce (128 B – 64 KB) on 2 GPUs, CUDA graphs in the benchmark; the source ran NVLSTree, the model picks ring with the LL protocol (NCCL's small-message choice on its tuning model)",
			Quote:    "When I run with 2 GPUs the latency is approximately 6us", Low: 6, High: 6, Unit: "µs",
			band: ncclMicros(NVLinkH200, 64<<10, 2)},
		{Title: stasARTitle, URL: stasARURL, Date: stasARDate, Device: stasARDevice, Versions: stasARVer, Kind: "collective",
			Workload: "all-reduce of 1 MiB (float32) on 8 GPUs through torch.distributed, one call per trial timed between CUDA events after a barrier, mean of 20 trials; the source states NCCL's choice: ring with the LL protocol up to 1 MiB, NVLS from 2 MiB (the model picks ring (LL) here, NVLS from about 1.5 MiB); band: the model's NCCL time + TorchCallCost",
			Quote:    "|    1MiB |  39.93GBps |  22.82GBps |", Low: 22.82, High: 22.82, Unit: "GB/s algbw",
			band: torchAlgBW(NVLinkH200, 1<<20, 8)},
		{Title: stasARTitle, URL: stasARURL, Date: stasARDate, Device: stasARDevice, Versions: stasARVer, Kind: "collective",
			Workload: "the same sweep's smallest payload, 32 KiB: latency-bound (ring, LL protocol); across the sweep 64–128 KiB lie 5–7% below the band, 256 KiB–4 MiB inside",
			Quote:    "|   32KiB |   1.44GBps |   0.82GBps |", Low: 0.82, High: 0.82, Unit: "GB/s algbw",
			Miss: "40 µs a call where the model allows 16–36 µs: one call timed alone right after a barrier holds PyTorch's whole per-call host path (the source's later script puts it at 20–30 µs) and the ranks' skew leaving the barrier, more than the 5–20 µs launch cost the band adds",
			band: torchAlgBW(NVLinkH200, 32<<10, 8)},
		{Title: "NVIDIA/nvbandwidth issue #24, “host_to_device_memcpy_sm low than device_to_host_memcpy_sm”", URL: "https://github.com/NVIDIA/nvbandwidth/issues/24",
			Date: "2024-09-11", Device: "H100 cluster (PCIe Gen5 x16 host link assumed: 64 GB/s per direction)", Versions: "nvbandwidth (version not stated), pinned host buffers (nvbandwidth's default)", Kind: "host copy",
			Workload: "device → host copy by SM kernels (device_to_host_memcpy_sm), pinned host memory, nvbandwidth's default buffer",
			Quote:    "memcpy SM CPU(row) <- GPU(column) bandwidth (GB/s) … 52.77", Low: 52.77, High: 52.77, Unit: "GB/s",
			band: hostGBs(H100, 512<<20, ToHost, true)},
		{Title: "NVIDIA/nvbandwidth issue #42, “Performance drop in host_to_device_memcpy_sm with large buffers”", URL: "https://github.com/NVIDIA/nvbandwidth/issues/42",
			Date: "2025-07-05", Device: "NVIDIA A100-SXM4-40GB (PCIe Gen4 x16: 32 GB/s per direction)", Versions: "nvbandwidth v0.8, CUDA runtime and driver 12.6, driver 560.35.05", Kind: "host copy",
			Workload: "host → device copy by SM kernels (host_to_device_memcpy_sm), pinned host memory, 512 MiB",
			Quote:    "./nvbandwidth -t host_to_device_memcpy_sm -b 512 … 25.13", Low: 25.13, High: 25.13, Unit: "GB/s",
			band: hostGBs(datasheet.A100x40, 512<<20, ToDevice, true)},
		{Title: "gengwg/gpu, “Using NVIDIA GPU P2P Benchmark tool” (nvda_gpu_benchmark.md), Host-to-Device Transfer Speeds Test, DGX A100, “No pin memory”", URL: "https://github.com/gengwg/gpu/blob/9f8f787513452502b2120dadaf2044395a17a38b/nvda_gpu_benchmark.md",
			Date: "2023-03-29 (the file's first commit)", Device: "NVIDIA A100-SXM4-80GB in a DGX A100 (PCIe Gen4 x16: 32 GB/s per direction)", Versions: "CUDA samples bandwidthTest (the page builds the samples' v11.4 tag); driver not stated", Kind: "host copy",
			Workload: "host → device copy from pageable (malloc'd) host memory, 32,000,000 bytes, bandwidthTest quick mode (the same host's pinned copy: 25.7 GB/s)",
			Quote:    "./bandwidthTest --memory=pageable … Host to Device Bandwidth … PAGEABLE Memory Transfers … 32000000 … 10.0", Low: 10.0, High: 10.0, Unit: "GB/s",
			band: hostGBs(datasheet.A100, 32e6, ToDevice, false)},
		mptRow(A100, "MPT-125M", 768, 12, 12, 40, 2, 125311488, 44.79, "125m | 2048 | 8 | a100_80gb | 44.79 | 44.79"),
		mptRow(A100, "MPT-1B", 2048, 24, 16, 14, 4, 1315950592, 59.86, "1b | 2048 | 8 | a100_80gb | 59.86 | 59.86"),
		mptRow(A100, "MPT-7B", 4096, 32, 32, 6, 2, 6658859008, 64.23, "7b | 2048 | 8 | a100_80gb | 64.23 | 64.23"),
		mptRow(H100, "MPT-1B", 2048, 24, 16, 14, 1, 1315950592, 41.82, "1b | 2048 | 8 | h100_80gb | 41.82 | 41.82"),
		mptRow(H100, "MPT-7B", 4096, 32, 32, 6, 1, 6658859008, 46.44, "7b | 2048 | 8 | h100_80gb | 46.44 | 46.44"),
		{Title: "Debtirtha Saha, “Eight A100s, $61, and 124M parameters” (a reproduction of Karpathy's “Let's reproduce GPT-2 (124M)”)", URL: "https://debtirthasaha.github.io/blog/2026/gpt2-124m/",
			Date: "2026", Device: "8 × A100 SXM4 (memory size not stated: both modeled)", Versions: "not stated in the part of the page read (the build-nanogpt recipe: bf16 autocast, flash attention, fused AdamW, DDP — the course's reading)", Kind: "training run",
			Workload: "GPT-2 124M training, 10B FineWeb-Edu tokens in 19,073 steps (≈524k tokens per step: 8 GPUs × 64 × 1024, no accumulation), DDP",
			Quote:    "Sustained throughput | — | 1.1M tokens/sec", Low: 1.1, High: 1.1, Unit: "M tokens/s",
			band: tokensPerSecond(gpt2Small, 8, A100, datasheet.A100x40)},
	}
}

// CardMarkdown is the model card as markdown: the rows the model was calibrated on, then the rows
// it is checked against, each with its source, device, versions, the figure and the model's band.
func CardMarkdown() string {
	var b strings.Builder
	b.WriteString(ChangeNote + "\n\n")
	for _, part := range []struct {
		title string
		cal   bool
	}{{"Calibration rows (used to set an assumption: not evidence for the model)", true}, {"Independent rows (the model was not fitted to them)", false}} {
		fmt.Fprintf(&b, "**%s**\n\n", part.title)
		b.WriteString("| # | Published figure (source, date) | Device; versions | Workload | Figure | Model band | In band? |\n")
		b.WriteString("|---|---|---|---|---|---|---|\n")
		for i, m := range Card() {
			if (m.Calibrated != "") != part.cal {
				continue
			}
			lo, hi := m.Band()
			verdict := "yes"
			if !m.Inside() {
				verdict = fmt.Sprintf("**no** (%.0f%% outside) — %s", 100*m.MissBy(), m.Miss)
			}
			if m.Calibrated != "" {
				verdict += " (calibrated: set " + m.Calibrated + ")"
			}
			fig := fmt.Sprintf("%.4g", m.Low)
			if m.High != m.Low {
				fig += fmt.Sprintf("–%.4g", m.High)
			}
			fmt.Fprintf(&b, "| %d | “%s” — [%s](%s), %s | %s; %s | %s | %s %s | %s–%s %s (%.1f×) | %s |\n", i+1, m.Quote, m.Title, m.URL, m.Date,
				m.Device, m.Versions, m.Workload, fig, m.Unit, trim3(lo), trim3(hi), m.Unit, math.Round(10*m.Width())/10, verdict)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// ChangeNote is the one line every place that shows the model says about its last change: what
// moved the numbers.
const ChangeNote = "GPU model v2 (2026-12-03; modeled numbers, not a measurement): GPT steps now follow a recipe (bf16 activations, flash attention, fused Adam, per-layer norm and GELU traffic), GEMMs of 1–2 waves use stream-K, a small GEMM takes at least 4–6 µs, all-reduces use NCCL's ring or NVLS by size, host copies differ by direction, the per-execution cost is paid once per execution, and bands are at most 2.5× wide — modeled numbers moved; see the model card's calibration and independent rows."

// ChangeLine is the one line a lesson prints under the model's numbers it shows, saying what moved
// them in the model's last change (ChangeNote has all of it). topic: "step" (a training step's
// band: lessons 01, 03, 08), "host" (host copies: 04), "gpt" (a GPT step: 09), "collective"
// (all-reduce: 10), "run" (a run's time at TrainingMFU: 11).
func ChangeLine(topic string) string {
	const v2 = "What changed in the GPU model (v2, 2026-12-03; modeled numbers, not a measurement): "
	switch topic {
	case "step":
		return v2 + "a GEMM kernel now takes at least 4–6 µs (OpenXLA's sm_90 table), the per-execution cost (6–14 µs) is paid once per execution, not per kernel, launches cost 1.5–3.5 µs and GEMMs reach 41–82% of an H200's peak; bands are at most 2.5× wide, so the GPU lane moved and narrowed."
	case "host":
		return v2 + "host copies differ by direction (host → device 55–85% of the link, device → host 70–88%) and a pageable buffer adds the driver's staging copy; before, one symmetric 70–85% band."
	case "gpt":
		return v2 + "a GPT step as PyTorch runs it today is built from a recipe (bf16 operands, float32 residuals, flash attention, fused AdamW) with every norm, GELU and softmax charged its own bytes; the xla:cpu-compiled step keeps XLA's float32 and materialized attention."
	case "collective":
		return v2 + "all-reduces run as NCCL picks them: ring with the LL protocol for small messages (NCCL's 0.47 µs per step on NVLink, was 2.5–7 µs), NVLS (the switch reduces) for large ones on NVSwitch systems; the ring formula you compute stays the ring."
	case "run":
		return v2 + "the 30–50% MFU a run's time uses is now on the model card, checked against published H100 runs (MPT 35–46%), and the model's own step bands for them overlap it."
	}
	return ChangeNote
}
