package gpumodel

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
)

// Range is an interval of one assumption: Low is the end that makes work fast, High the end that
// makes it slow (so for a fraction of peak, Low is the larger fraction).
type Range struct{ Low, High float64 }

// Assumptions are the model's inputs beyond the datasheet, each a range.
type Assumptions struct {
	Issue        Range   // host seconds to issue one kernel launch
	Floor        Range   // least seconds one kernel occupies the GPU on a stream
	GEMMFloor    Range   // least seconds a library GEMM kernel (both sides ≥ 64) occupies the GPU
	PerRun       Range   // fixed seconds per execution: enqueue the program, wait for completion
	PeakFraction Range   // fraction of the precision's peak a large GEMM reaches (Low: the larger)
	BWFraction   Range   // fraction of HBM bandwidth a streaming kernel reaches (Low: the larger)
	TileM, TileN int     // output tile of a GEMM, one per SM at a time
	K0           float64 // pipeline fill of a tile, in elements of K for 2-byte operands
}

// LaunchSource is where the launch ranges come from, printed with them wherever the model's
// assumptions are shown (see the package comment).
const LaunchSource = `measured: 80 tiny kernels ≈260 µs one by one on a stream (≈3.3 µs each), ≈70 µs as one CUDA graph (≈0.9 µs each), CUDA.jl documentation "Graphs", https://cuda.juliagpu.org/dev/usage/graphs/; the CPU runtime event of a launch (cudaLaunchKernel) in PyTorch traces: "Usually, the launch time on the CPU side is between 5-20 microseconds", Holistic Trace Analysis documentation, CUDA kernel launch stats, https://github.com/facebookresearch/HolisticTraceAnalysis/blob/main/docs/source/features/cuda_kernel_launch_stats.rst — XLA's compiled launches are assumed below that (the course's assumption)`

// Published are the default assumptions. What each rests on (the model card, Card, checks them
// against published measurements; its calibration rows are marked as such):
//
//   - Issue 1.5–3.5 µs per launch: between CUDA.jl's 80 tiny kernels as one CUDA graph (≈0.9 µs
//     each) and one by one on a stream (≈3.3 µs each, LaunchSource); XLA captures some kernels in
//     command buffers (CUDA graphs) and not others — the course's assumption, narrowed from 1–4 µs
//     so a launch-bound chain's band stays under 2.5× wide. OnStream and AsGraph narrow it to
//     either end.
//   - Floor 1–2 µs per elementwise kernel, a kernel's time being at least its floor and, at the
//     pessimistic end, a quarter of the low floor more (its ramp): the course's assumption (AsGraph's 0.7–1.2 µs is
//     calibrated on the same CUDA.jl graph: 70 µs for 80 kernels).
//   - GEMMFloor 4–6 µs per library GEMM whose sides are both at least 64: calibrated on the
//     smallest products of OpenXLA's sm_90 matmul table (512×256×256 and 4×256×256×256 in bf16 take
//     ≈5.9 µs: GEMMSource); a skinny product runs other kernels and gets Floor.
//   - PerRun 6–14 µs per execution, counted once per execution however many kernels it runs
//     (PerIteration spreads it over a timed loop): the course's assumption.
//   - PeakFraction 41–89% of the dense tensor-core peak, the top capped per GPU at its best shape's
//     measured fraction + 2 points (bestMatmul: H100 80.3%, A100 86.9%, the Maximum Achievable
//     Matmul FLOPS table, Card's calibration rows); the bottom is calibrated on the slowest
//     published training run on the card (MPT-760M on 8 × H100, 34.9% MFU).
//   - BWFraction 60–90% of HBM bandwidth: the top from an A100's measured copy at 87% of its
//     datasheet bandwidth (Card), the bottom for a training step's multi-input kernels (norms,
//     GELU, cross-entropy) — the course's assumption.
//   - TileM×TileN 128×128, K₀ = 64 for 2-byte operands (128 for 4-byte: a TF32 K-step carries half
//     the elements), split-K up to one piece per 1024 of K below one wave, stream-K (work spread
//     evenly over the SMs) for products of one to two waves: the course's assumption (StreamKSource).
var Published = Assumptions{
	Issue:        Range{1.5e-6, 3.5e-6},
	Floor:        Range{1e-6, 2e-6},
	GEMMFloor:    Range{4e-6, 6e-6},
	PerRun:       Range{6e-6, 14e-6},
	PeakFraction: Range{0.89, 0.41},
	BWFraction:   Range{0.90, 0.60},
	TileM:        128, TileN: 128,
	K0: 64,
}

// GEMMSource is where GEMMFloor and the card's small-GEMM rows come from.
const GEMMSource = "OpenXLA's default matmul performance table for sm_90 (xla/service/gpu/model/matmul_interpolator_data.h, as vendored in tensorflow/tensorflow third_party/xla): measured FLOP/s per GEMM shape and dtype"

// StreamKSource says why a GEMM of one to two waves is not charged a whole second wave.
const StreamKSource = "stream-K (the CUTLASS/cuBLAS decomposition that splits the whole MAC loop evenly over the SMs instead of whole tiles) removes most of a partial wave's idle time; the model spreads a 1–2-wave product evenly at both ends and charges whole waves from three waves on at the pessimistic end — the course's assumption"

// bestMatmul is the best-shape fraction of the bf16 peak measured per GPU (Maximum Achievable
// Matmul FLOPS table: H100 SXM 794.5 of 989 TFLOP/s, A100 SXM 271.2 of 312): the top of
// PeakFraction is capped at it + 2 points. The H200 is the H100's chip (the course's assumption).
var bestMatmul = map[string]float64{"H100": 0.803, "H200": 0.803, "A100": 0.869, "A100 40GB": 0.869}

// peakFraction is m's PeakFraction with its top capped by the GPU's best measured fraction.
func (m Model) peakFraction() Range {
	r := m.A.PeakFraction
	if b, ok := bestMatmul[m.GPU.Short]; ok && r.Low > b+0.02 {
		r.Low = b + 0.02
	}
	return r
}

// GEMM is one matrix product's shape: an M×K by K×N product, M×N outputs; Batch such products
// side by side in one kernel (0 or 1: one).
type GEMM struct {
	M, N, K int
	Batch   int `json:",omitempty"`
}

// FLOPs is 2·Batch·M·N·K.
func (g GEMM) FLOPs() float64 {
	return 2 * float64(max(g.Batch, 1)) * float64(g.M) * float64(g.N) * float64(g.K)
}

// Work is what the model is asked about.
type Work struct {
	What      string  // e.g. "mlp train step 1×(784→64×2→10) float32 sgd"
	FLOPs     float64 // total FLOPs, from the workload's formula
	Bytes     float64 // bytes moved at least, from the workload's formula
	Precision string  // the peak that applies: "tf32" (XLA's default for float32 matmuls), "bfloat16", …
	GEMMs     []GEMM  // the matrix products, for tile/wave quantization (none: FLOPs at the fraction of peak)
	Kernels   int     // kernels one execution launches
	// KernelsFrom says where Kernels comes from: "counted on xla:cpu" (fusions in XLA's optimized
	// HLO, compiled for the CPU) or "assumed: …".
	KernelsFrom string
	// Sequence is the kernels one execution runs, in order, each with its FLOPs, bytes and GEMMs,
	// when they were read from a compiled program (SequenceAssumption); empty, the model builds one
	// kernel per GEMM and shares the rest of FLOPs and Bytes over the other Kernels.
	Sequence []Kernel
}

// PrecisionFor is the peak XLA uses for a dtype's matrix products on a GPU: "tf32" for float32
// (XLA and JAX use TF32 for float32 matmuls by default; PyTorch's default is off since 1.12), the
// dtype itself otherwise.
func PrecisionFor(dtype string) string {
	dtype = strings.ToLower(dtype)
	if dtype == "float32" {
		return "tf32"
	}
	return dtype
}

// Model is a datasheet GPU with assumptions.
type Model struct {
	GPU datasheet.GPU
	A   Assumptions
}

// Default is the H200 (datasheet.H200, the GPU the course records on) with the Published
// assumptions: the model every lesson uses.
func Default() Model { return Model{GPU: datasheet.H200, A: Published} }

// Estimate is the model's band for some work, with its parts at both ends.
type Estimate struct {
	Work      Work
	GPU       string        // "H200 SXM"
	Low, High time.Duration // the band: optimistic and pessimistic ends
	// Parts at the optimistic (index 0) and pessimistic (index 1) ends, in seconds.
	Compute, Memory, Launch, Device [2]float64
	Tiles, Waves                    int     // of the largest GEMM
	Fill                            float64 // SMs busy in the largest GEMM's waves: tiles / (waves × SMs)
	// Bound is what dominates at the pessimistic end: "launch-bound" (the fixed costs per execution,
	// per launch and per kernel are at least the kernels' own work: overhead-bound), else
	// "fill-bound" (most of the work in products with too few tiles for the SMs: FillBound),
	// "compute-bound" or "memory-bound" by which kind of kernel holds more of the work.
	Bound string
	// Kernels are the modeled kernels in order (Work.Sequence, or one built from Work's GEMMs).
	Kernels     []KernelTime
	assumptions []string
	model       Model
}

// Estimate computes the band for w, kernel by kernel: each kernel of w's sequence (Work.Sequence,
// or one built from its GEMMs and kernel count) gets its own roofline time, max(compute, memory),
// with at least the floor; the stream runs them in order as the host issues them; a fixed cost per
// execution is added. The step is Σᵢ max(Cᵢ, Mᵢ) plus the launch and floor terms, not a roofline of
// the summed work: a memory-bound kernel cannot hide under a GEMM that runs before or after it.
func (m Model) Estimate(w Work) Estimate {
	e := Estimate{Work: w, GPU: strings.TrimPrefix(m.GPU.Model, "NVIDIA "), model: m}
	seq := w.sequence()
	if len(w.Sequence) > 0 {
		e.Work.Kernels = len(seq)
	}
	biggest, bigFLOPs := GEMM{}, -1.0
	for _, k := range seq {
		kt := m.kernelTime(k, w.Precision)
		e.Kernels = append(e.Kernels, kt)
		for _, g := range k.GEMMs {
			if g.FLOPs() > bigFLOPs {
				biggest, bigFLOPs = g, g.FLOPs()
			}
		}
	}
	if bigFLOPs >= 0 {
		e.Tiles, e.Waves = m.tiles(biggest)
		e.Fill = float64(e.Tiles) / float64(e.Waves*m.GPU.SMs)
	}
	k := float64(len(seq))
	issue := [2]float64{m.A.Issue.Low, m.A.Issue.High}
	run := [2]float64{m.A.PerRun.Low, m.A.PerRun.High}
	var work [2]float64
	for end := range 2 {
		times := make([]float64, len(e.Kernels))
		for i, kt := range e.Kernels {
			times[i] = kt.Time[end]
			e.Compute[end] += kt.Compute[end]
			e.Memory[end] += kt.Memory[end]
			e.Device[end] += kt.Time[end]
			work[end] += math.Max(kt.Compute[end], kt.Memory[end])
		}
		e.Launch[end] = k * issue[end]
		total := run[end] + stream(times, issue[end])
		if end == 0 {
			e.Low = seconds(total)
		} else {
			e.High = seconds(total)
		}
	}
	// What dominates at the pessimistic end: the fixed costs (per execution, per launch, the floor
	// of every kernel) or the kernels' own work, and of that work the compute- or memory-bound part.
	var byBound = map[string]float64{}
	for _, kt := range e.Kernels {
		byBound[kt.Bound] += math.Max(kt.Compute[1], kt.Memory[1])
	}
	switch {
	case e.High.Seconds()-work[1] >= work[1]:
		e.Bound = "launch-bound"
	case byBound[FillBound] >= byBound["compute-bound"] && byBound[FillBound] >= byBound["memory-bound"]:
		e.Bound = FillBound
	case byBound["compute-bound"]+byBound[FillBound] >= byBound["memory-bound"]:
		e.Bound = "compute-bound"
	default:
		e.Bound = "memory-bound"
	}
	e.assumptions = m.assumptionLines(w)
	return e
}

// Overhead is the share of the pessimistic end that is not the kernels' own work (per-execution
// cost, launches the GPU waits for, every kernel's floor): near 1 for an overhead-bound step.
func (e Estimate) Overhead() float64 {
	work := 0.0
	for _, kt := range e.Kernels {
		work += math.Max(kt.Compute[1], kt.Memory[1])
	}
	if e.High <= 0 {
		return 0
	}
	return 1 - work/e.High.Seconds()
}

// GEMMRate is the sustained FLOP/s band of large, well-shaped matrix products of a precision: the
// datasheet peak × the PeakFraction range (Low: the faster end). A whole training step, with its
// memory-bound operations, gets less: a ceiling for long runs where launch costs vanish.
func (m Model) GEMMRate(precision string) Range {
	p := m.GPU.Peak(precision)
	f := m.peakFraction()
	return Range{Low: p * f.Low, High: p * f.High}
}

// TrainingMFU is the MFU (model FLOPs ÷ the datasheet peak) a whole training step of a large model
// sustains on the GPU, the rate lessons 08 and 11 turn a run's FLOPs into time with: 30–50%, around
// the source's 40% (lesson 08). It is on the model card: every published H100 training run there
// (MPT-760M, 1B and 7B on 8 × H100: 34.9–46.4% MFU) lies inside it, and the model's own step band
// for each of them overlaps it (TestTrainingMFUIsOnTheCard) — the course's assumption, checked
// (Low: the faster end).
var TrainingMFU = Range{Low: 0.50, High: 0.30}

// RunTime is the band of the time a run of flops takes on m at TrainingMFU of the precision's peak.
func (m Model) RunTime(flops float64, precision string) (low, high time.Duration) {
	p := m.GPU.Peak(precision)
	return seconds(flops / (p * TrainingMFU.Low)), seconds(flops / (p * TrainingMFU.High))
}

// MFUNote states RunTime's assumption in one line, with its label.
func (m Model) MFUNote(precision string) string {
	return fmt.Sprintf("%s model band, not a measurement: MFU %.0f–%.0f%% of the datasheet %s peak %s (a whole training step, the course's assumption around the source's 40%%, checked on the model card against published H100 runs at 35–46%%)",
		strings.TrimPrefix(m.GPU.Model, "NVIDIA "), 100*TrainingMFU.High, 100*TrainingMFU.Low, precision, si(m.GPU.Peak(precision), "FLOP/s"))
}

// RateNote states GEMMRate's assumptions in one line, with its label.
func (m Model) RateNote(precision string) string {
	return fmt.Sprintf("%s model band, not a measurement: fraction of peak on large GEMMs %.0f–%.0f%% of the datasheet %s peak %s; launches negligible over long runs",
		strings.TrimPrefix(m.GPU.Model, "NVIDIA "), 100*m.peakFraction().High, 100*m.peakFraction().Low, precision, si(m.GPU.Peak(precision), "FLOP/s"))
}

// tileShape is the output tile used for g: TileM×TileN, narrowed for a skinny product down to 64
// (the smallest M of a Hopper tensor-core instruction, wgmma m64), rounded up to a multiple of 16.
func (m Model) tileShape(g GEMM) (tm, tn int) {
	narrow := func(dim, tile int) int { return min(tile, max(64, ceilDiv(dim, 16)*16)) }
	return narrow(g.M, m.A.TileM), narrow(g.N, m.A.TileN)
}

// tiles returns the output tiles of g and the waves they take on the GPU's SMs.
func (m Model) tiles(g GEMM) (tiles, waves int) {
	tm, tn := m.tileShape(g)
	tiles = max(g.Batch, 1) * ceilDiv(g.M, tm) * ceilDiv(g.N, tn)
	return tiles, ceilDiv(tiles, m.GPU.SMs)
}

// splitK is how many pieces a library cuts K into when g has fewer output tiles than SMs (split-K:
// idle SMs take a share of the inner loop), at most one piece per 1024 of K (OpenXLA's sm_90 table
// times 1024×256×1024, 16 tiles, as if it were cut in at most two: GEMMSource).
func (m Model) splitK(g GEMM) int {
	tiles, _ := m.tiles(g)
	return max(1, min(m.GPU.SMs/max(tiles, 1), ceilDiv(g.K, 1024)))
}

func ceilDiv(a, b int) int { return (max(a, 1) + b - 1) / b }

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// Mid is the band's geometric middle: for ordering and for a chart's axis range only, never shown as
// a result.
func (e Estimate) Mid() time.Duration {
	return seconds(math.Sqrt(e.Low.Seconds() * e.High.Seconds()))
}

// Brief is the model's assumptions for float32 or another precision's products in one sentence,
// printed by the lessons wherever prose would otherwise quote them (and drift when they change):
// "each matrix product as 128×128 output tiles on 132 SMs at 41–82% of the TF32 peak, …".
func (m Model) Brief(precision string) string {
	a, pf := m.A, m.peakFraction()
	us := func(r Range) string { return fmt.Sprintf("%.3g–%.3g µs", r.Low*1e6, r.High*1e6) }
	return fmt.Sprintf("each matrix product as %d×%d output tiles on %d SMs at %.0f–%.0f%% of the %s peak, bytes at %.0f–%.0f%% of the HBM bandwidth, "+
		"each kernel issued in %s (a GEMM kernel takes at least %s), plus %s per execution",
		a.TileM, a.TileN, m.GPU.SMs, 100*pf.High, 100*pf.Low, strings.ToUpper(PrecisionFor(precision)), 100*a.BWFraction.High, 100*a.BWFraction.Low,
		us(a.Issue), us(a.GEMMFloor), us(a.PerRun))
}

// Name is the legend name of the model's lanes and series: "H200 (model)".
func (m Model) Name() string { return m.GPU.Short + " (model)" }

// Band is the band in words: "23 µs – 92 µs".
func (e Estimate) Band() string { return dur(e.Low.Seconds()) + " – " + dur(e.High.Seconds()) }

// Label is what every table cell or chart label that shows the band says: "H200 SXM model: 23 µs –
// 92 µs (a band, not a measurement)".
func (e Estimate) Label() string {
	return e.GPU + " model: " + e.Band() + " (a band, not a measurement)"
}

// Note is the one-line summary of the assumptions, for a chart legend or a lane's note.
func (e Estimate) Note() string {
	a := e.model.A
	seq := "built from the formula's GEMMs"
	if len(e.Work.Sequence) > 0 {
		seq = SequenceAssumption
	}
	return fmt.Sprintf("%s model band, not a measurement: %d kernel(s) (%s; %s), each its own roofline max(compute, memory), one after another, at %s–%s issue each, overlapped on a stream; %s peak × %.0f–%.0f%%, HBM × %.0f–%.0f%%; %d×%d tiles on %d SMs",
		e.GPU, e.Work.Kernels, e.Work.KernelsFrom, seq, dur(a.Issue.Low), dur(a.Issue.High),
		strings.ToUpper(e.Work.Precision), 100*e.model.peakFraction().High, 100*e.model.peakFraction().Low, 100*a.BWFraction.High, 100*a.BWFraction.Low, a.TileM, a.TileN, e.model.GPU.SMs)
}

// Assumptions are the model's assumptions for this estimate, one per line, each with its source.
func (e Estimate) Assumptions() []string { return append([]string(nil), e.assumptions...) }

func (m Model) assumptionLines(w Work) []string {
	a := m.A
	c := m.GPU.Ceilings
	kf := w.KernelsFrom
	if kf == "" {
		kf = "given"
	}
	return []string{
		fmt.Sprintf("GPU: %s, %d SMs at %.2f GHz; %s peak %s, HBM %s (%s)", m.GPU.Model, m.GPU.SMs, m.GPU.BoostGHz,
			strings.ToUpper(w.Precision), si(m.GPU.Peak(w.Precision), "FLOP/s"), si(c.BandwidthBytes, "B/s"), c.Source),
		fmt.Sprintf("precision: %s (XLA runs float32 matmuls in TF32 on tensor cores by default)", w.Precision),
		fmt.Sprintf("kernels per execution: %d (%s)", max(w.Kernels, len(w.Sequence)), kf),
		sequenceLine(w),
		fmt.Sprintf("launch: %s–%s host issue per kernel, overlapped with execution on one stream; at least %s–%s per kernel on the GPU (%s)",
			dur(a.Issue.Low), dur(a.Issue.High), dur(a.Floor.Low), dur(a.Floor.High), LaunchSource),
		fmt.Sprintf("per execution: %s–%s to enqueue the program and wait for its completion, once per execution however many kernels it runs (the course's assumption)", dur(a.PerRun.Low), dur(a.PerRun.High)),
		fmt.Sprintf("GEMMs: %d×%d output tiles (narrowed to ≥ 64 for skinny products), one per SM at a time, in waves of %d; with fewer tiles than SMs, K is split across idle SMs (≤ one piece per 1024); %s; a tile runs at K/(K+%g) of its rate for 2-byte operands (pipeline fill; twice that K₀ for 4-byte) — the course's assumption; a GEMM kernel takes at least %s–%s (%s)", a.TileM, a.TileN, m.GPU.SMs, StreamKSource, a.K0, dur(a.GEMMFloor.Low), dur(a.GEMMFloor.High), GEMMSource),
		fmt.Sprintf("fraction of peak on large GEMMs: %.0f–%.0f%% (top capped at the GPU's best shape in the Maximum Achievable Matmul FLOPS table + 2 points: H100 SXM 80.3%%, A100 SXM 86.9%%; bottom calibrated on the slowest published training run on the card, MPT-760M on 8 × H100); of HBM bandwidth: %.0f–%.0f%% (top: an A100's measured copy reaches 87%%; bottom for a training step's multi-input kernels, the course's assumption) — see the model card, gpumodel.Card",
			100*m.peakFraction().High, 100*m.peakFraction().Low, 100*a.BWFraction.High, 100*a.BWFraction.Low),
		"the batch is already on the GPU (no PCIe trip: " + m.GPU.PCIe + ", ~" + si(m.GPU.PCIeBytes, "B/s") + " per direction)",
	}
}

// sequenceLine says where the kernel sequence comes from.
func sequenceLine(w Work) string {
	if len(w.Sequence) > 0 {
		return "kernel by kernel: each kernel's FLOPs and bytes (operands + results) from the HLO shapes; " + SequenceAssumption
	}
	return "kernel by kernel: one kernel per GEMM (operands + result bytes from its shape), the rest of the FLOPs and bytes shared evenly over the other kernels (the course's assumption: no compiled program was read)"
}

// Against compares the band with a measurement recorded for the same work (where names the
// recording, e.g. "recorded on NVIDIA H200, 2026-12-01"): inside the band, or how far outside.
func (e Estimate) Against(measured time.Duration, where string) string {
	m := measured.Seconds()
	switch {
	case measured <= 0:
		return "no recording to compare with"
	case measured < e.Low:
		return fmt.Sprintf("%s %s is %.0f%% below the model's band (%s): the model is pessimistic here", where, dur(m), 100*(1-m/e.Low.Seconds()), e.Band())
	case measured > e.High:
		return fmt.Sprintf("%s %s is %.0f%% above the model's band (%s): the model is optimistic here", where, dur(m), 100*(m/e.High.Seconds()-1), e.Band())
	}
	return fmt.Sprintf("%s %s lies inside the model's band (%s)", where, dur(m), e.Band())
}

// Versus is the line (or table row) that puts the model beside a GPU measurement of the same work:
// "model vs recording: +12% (…Against…; …Note…)", the note carrying the model's label and assumptions. recorded says whether the measurement was
// recorded on a GPU that is not here ("recording") or measured live ("measurement"); where names
// it as Against does. The percentage is Error: 0 inside the band, the distance past its nearer end
// outside it (+: the GPU was slower than even the pessimistic end).
func (e Estimate) Versus(measured time.Duration, recorded bool, where string) string {
	kind := "measurement"
	if recorded {
		kind = "recording"
	}
	return fmt.Sprintf("%s %s: %+.0f%% (%s; %s)", VersusPrefix, kind, 100*e.Error(measured), e.Against(measured, where), e.Note())
}

// VersusPrefix starts every Versus line: "model vs".
const VersusPrefix = "model vs"

// Error is the measurement's relative error against the band: 0 inside it, negative below the low
// end (measured/low − 1), positive above the high end (measured/high − 1).
func (e Estimate) Error(measured time.Duration) float64 {
	switch {
	case measured < e.Low:
		return measured.Seconds()/e.Low.Seconds() - 1
	case measured > e.High:
		return measured.Seconds()/e.High.Seconds() - 1
	}
	return 0
}

// dur formats seconds to three significant digits with a unit: "3.8 µs".
func dur(s float64) string { return si(s, "s") }

func si(v float64, unit string) string {
	if v == 0 {
		return "0 " + unit
	}
	prefixes := []struct {
		scale float64
		p     string
	}{{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "µ"}, {1e-9, "n"}}
	for _, p := range prefixes {
		if math.Abs(v) >= p.scale*0.9995 {
			return trim3(v/p.scale) + " " + p.p + unit
		}
	}
	return fmt.Sprintf("%.3g %s", v, unit)
}

func trim3(v float64) string {
	s := fmt.Sprintf("%.3g", v)
	if strings.Contains(s, "e") {
		s = fmt.Sprintf("%.0f", v)
	}
	return s
}

// Markers are what every place that shows a modeled GPU number must also show: the label (one of
// Labels) and the assumptions (one of AssumptionMarks, from Note or Assumptions).
var (
	Labels          = []string{"not a measurement"}
	AssumptionMarks = []string{"issue each, overlapped on a stream", "CUDA graph", "fraction of peak on large GEMMs"}
)

// CheckLabeled checks a rendered table, chart or text for modeled GPU numbers without their label:
// every line that names a model GPU ("H200 (model)", "H100 SXM model", "GPU model") must carry a
// label, and the text must carry the model's assumptions somewhere. It returns nil when the text
// shows no modeled GPU number.
func CheckLabeled(text string) error {
	var unlabeled []string
	found := false
	for _, line := range strings.Split(text, "\n") {
		if !namesModel(line) {
			continue
		}
		found = true
		if !containsAny(line, Labels) {
			unlabeled = append(unlabeled, line)
		}
	}
	switch {
	case len(unlabeled) > 0:
		return fmt.Errorf("gpumodel: modeled GPU numbers without %q: %q", Labels[0], unlabeled)
	case found && !containsAny(text, AssumptionMarks):
		return fmt.Errorf("gpumodel: modeled GPU numbers without the model's assumptions (%q)", AssumptionMarks)
	}
	return nil
}

func namesModel(line string) bool {
	return containsAny(line, []string{datasheet.H200.Short + " (model)", datasheet.H100.Short + " (model)", "SXM model", "GPU model"})
}

func containsAny(s string, subs []string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// PerIteration is the band of one iteration of a timed loop that runs w n times in one execution
// (a benchmark's mean over n iterations between two synchronizations): the per-execution cost is
// paid once and spread over the n iterations, the launches and kernels n times.
func (m Model) PerIteration(w Work, n int) Estimate {
	n = max(1, n)
	seq := w.sequence()
	loop := w
	loop.Sequence = nil
	for range n {
		loop.Sequence = append(loop.Sequence, seq...)
	}
	loop.Kernels = len(loop.Sequence)
	e := m.Estimate(loop)
	e.Low, e.High = e.Low/time.Duration(n), e.High/time.Duration(n)
	e.Work = w
	return e
}
