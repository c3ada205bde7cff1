package gpumodel

import (
	"math"
	"sort"
	"time"
)

// Kernel is one kernel of the sequence an execution runs, as the model sees it: its arithmetic,
// its traffic to device memory and its matrix products. A step's kernels come from the optimized
// HLO XLA compiled for xla:cpu (StepWork reads them with hlo.CompiledKernels); XLA's
// GPU compiler fuses the same graph differently (it runs GEMMs through cuBLAS or Triton, may fuse
// a bias and activation into a GEMM's epilogue, and fuses an optimizer's update of many
// parameters into fewer kernels), so the sequence is an assumption the model states
// (SequenceAssumption).
type Kernel struct {
	Name  string  `json:"name"`  // "ynn_fusion.8"
	Class string  `json:"class"` // "matrix product (GEMM)", "elementwise (fused)", … (hlo.Classes)
	FLOPs float64 `json:"flops"` // all its arithmetic, its GEMMs' included
	Bytes float64 `json:"bytes"` // operands read + results written, each once
	GEMMs []GEMM  `json:"gemms,omitempty"`
}

// SequenceAssumption is said on every use of a kernel sequence read from xla:cpu's compile.
const SequenceAssumption = "the kernels are xla:cpu's compilation of the same graph (the course's assumption: XLA's GPU compiler fuses differently, e.g. the optimizer update and GEMM epilogues)"

// KernelTime is the model of one kernel, at the optimistic (index 0) and pessimistic (1) ends,
// in seconds.
type KernelTime struct {
	Kernel
	Compute, Memory, Time [2]float64
	// Bound is what sets its time at the pessimistic end: "compute-bound", FillBound (too few tiles
	// for the SMs), "memory-bound" or "floor-bound" (shorter than the least time a kernel occupies
	// the GPU).
	Bound string
}

// ClassTime is the model's time for the kernels of one class in an execution.
type ClassTime struct {
	Class   string
	Kernels int
	Time    [2]float64 // seconds, optimistic and pessimistic ends
	Share   [2]float64 // of the sum of all kernels' times at each end
	Bound   string     // the bound of most of the class's time at the pessimistic end
	FLOPs   float64
	Bytes   float64
}

// ByClass groups the estimate's kernels by class, the largest pessimistic time first.
func (e Estimate) ByClass() []ClassTime {
	idx := map[string]int{}
	var out []ClassTime
	boundTime := map[string]map[string]float64{}
	var total [2]float64
	for _, k := range e.Kernels {
		i, ok := idx[k.Class]
		if !ok {
			i = len(out)
			idx[k.Class] = i
			out = append(out, ClassTime{Class: k.Class})
			boundTime[k.Class] = map[string]float64{}
		}
		c := &out[i]
		c.Kernels++
		c.FLOPs += k.FLOPs
		c.Bytes += k.Bytes
		for end := range 2 {
			c.Time[end] += k.Time[end]
			total[end] += k.Time[end]
		}
		boundTime[k.Class][k.Bound] += k.Time[1]
	}
	for i := range out {
		for end := range 2 {
			if total[end] > 0 {
				out[i].Share[end] = out[i].Time[end] / total[end]
			}
		}
		best := 0.0
		for _, b := range []string{"compute-bound", FillBound, "memory-bound", "floor-bound"} {
			if t := boundTime[out[i].Class][b]; t > best {
				best, out[i].Bound = t, b
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Time[1] > out[b].Time[1] })
	return out
}

// elementBytes is the bytes per element of a matrix product's operands in a precision.
func elementBytes(precision string) float64 {
	switch precision {
	case "bfloat16", "float16":
		return 2
	case "float64":
		return 8
	case "float8", "fp8":
		return 1
	}
	return 4
}

// Bytes is the least traffic of the product: both operands read and the result written once, at
// bytesPerElement each.
func (g GEMM) Bytes(bytesPerElement float64) float64 {
	b := float64(max(g.Batch, 1))
	return b * bytesPerElement * (float64(g.M)*float64(g.K) + float64(g.K)*float64(g.N) + float64(g.M)*float64(g.N))
}

// sequence is the kernels w runs: w.Sequence when it was read from a compiled program; otherwise
// one kernel per GEMM (its operand bytes from its shape) and the rest of w.Kernels sharing the
// rest of w's FLOPs and bytes evenly (the course's assumption, when nothing was compiled).
func (w Work) sequence() []Kernel {
	if len(w.Sequence) > 0 {
		return w.Sequence
	}
	eb := elementBytes(w.Precision)
	var seq []Kernel
	gemmFLOPs, gemmBytes := 0.0, 0.0
	for _, g := range w.GEMMs {
		k := Kernel{Name: "gemm", Class: ClassGEMM, FLOPs: g.FLOPs(), Bytes: g.Bytes(eb), GEMMs: []GEMM{g}}
		gemmFLOPs += k.FLOPs
		gemmBytes += k.Bytes
		seq = append(seq, k)
	}
	rest := w.Kernels - len(seq)
	if rest <= 0 {
		// only GEMMs: they carry all of w's bytes when w says how many (a lone product's formula)
		if w.Bytes > 0 && gemmBytes > 0 {
			for i := range seq {
				seq[i].Bytes *= w.Bytes / gemmBytes
			}
		}
		if len(seq) == 0 {
			seq = append(seq, Kernel{Name: "kernel", Class: ClassElementwise, FLOPs: w.FLOPs, Bytes: w.Bytes})
		}
		return seq
	}
	f := math.Max(0, w.FLOPs-gemmFLOPs) / float64(rest)
	b := math.Max(0, w.Bytes-gemmBytes) / float64(rest)
	for range rest {
		seq = append(seq, Kernel{Name: "fused", Class: ClassElementwise, FLOPs: f, Bytes: b})
	}
	return seq
}

// ClassGEMM is the class of a kernel that holds a matrix product (the same words as package
// compiled's).
const ClassGEMM = "matrix product (GEMM)"

// ClassElementwise is the class of a fused elementwise kernel.
const ClassElementwise = "elementwise (fused)"

// kernelTime models one kernel at both ends (see the package comment).
func (m Model) kernelTime(k Kernel, precision string) KernelTime {
	kt := KernelTime{Kernel: k}
	peak := m.GPU.Peak(precision)
	if peak == 0 {
		peak = m.GPU.Peak("float32")
	}
	cuda := m.GPU.Peak("float32") // elementwise arithmetic runs on the CUDA cores
	if cuda == 0 {
		cuda = peak
	}
	perSM := peak / float64(m.GPU.SMs)
	pf := m.peakFraction()
	fr := [2]float64{pf.Low, pf.High}
	bw := [2]float64{m.A.BWFraction.Low, m.A.BWFraction.High}
	floor := [2]float64{m.A.Floor.Low, m.A.Floor.High}
	gemmFLOPs := 0.0
	for _, g := range k.GEMMs {
		gemmFLOPs += g.FLOPs()
		if min(g.M, g.N) >= 64 && m.A.GEMMFloor.High > 0 {
			floor = [2]float64{m.A.GEMMFloor.Low, m.A.GEMMFloor.High}
		}
	}
	k0 := m.A.K0 * elementBytes(precision) / 2
	for end := range 2 {
		c := 0.0
		for _, g := range k.GEMMs {
			tm, tn := m.tileShape(g)
			tiles, waves := m.tiles(g)
			split := m.splitK(g)
			tileFLOPs := 2 * float64(tm*tn) * (float64(ceilDiv(g.K, split)) + k0)
			w := float64(waves)
			// stream-K: a product of more than one wave spreads its work evenly over the SMs (at the
			// pessimistic end only up to two waves; from three on, whole waves)
			if ws := float64(tiles) / float64(m.GPU.SMs); ws > 1 && (end == 0 || waves <= 2) {
				w = ws
			}
			c += w * tileFLOPs / (perSM * fr[end])
		}
		if rest := k.FLOPs - gemmFLOPs; rest > 0 {
			c += rest / (cuda * fr[end])
		}
		kt.Compute[end] = c
		if b := m.GPU.Bandwidth(); b > 0 {
			kt.Memory[end] = k.Bytes / (b * bw[end])
		}
		// at least the floor; at the pessimistic end a ramp of a quarter of the low floor is added
		// (launch into the SMs, first loads, epilogue not hidden under the work)
		work := math.Max(kt.Compute[end], kt.Memory[end])
		kt.Time[end] = math.Max(work, floor[end])
		if end == 1 {
			kt.Time[end] += floor[0] / 4
		}
	}
	// The same FLOPs spread over every SM at the same reached fraction: what the arithmetic alone
	// would take. Products with fewer output tiles than SMs (or a short last wave) take longer.
	ideal := gemmFLOPs/(peak*fr[1]) + math.Max(0, k.FLOPs-gemmFLOPs)/(cuda*fr[1])
	switch work := math.Max(kt.Compute[1], kt.Memory[1]); {
	case floor[1] >= work:
		kt.Bound = "floor-bound"
	case kt.Compute[1] >= kt.Memory[1] && gemmFLOPs > 0 && kt.Compute[1] >= FillBoundAbove*ideal:
		kt.Bound = FillBound
	case kt.Compute[1] >= kt.Memory[1]:
		kt.Bound = "compute-bound"
	default:
		kt.Bound = "memory-bound"
	}
	return kt
}

// FillBound is a kernel whose matrix products have too few output tiles to fill the SMs (or a short
// last wave): its time is set by the tiles each SM runs, at least FillBoundAbove times what its FLOPs
// would take spread over every SM. Not compute-bound: twice the rows (more tiles) take about the same
// time; by the course's time budget (FLOPs ÷ the peak) such a step is overhead-bound.
const FillBound = "fill-bound"

// FillBoundAbove is how much longer than its FLOPs spread over every SM a product must take to be
// FillBound: twice (half the SMs or fewer busy on average).
const FillBoundAbove = 2.0

// stream runs kernel times in order on one stream fed by a host that issues one launch every issue
// seconds: a kernel starts when it has been issued and the one before it has finished. It returns
// when the last one ends.
func stream(times []float64, issue float64) float64 {
	end := 0.0
	for i, t := range times {
		end = math.Max(float64(i+1)*issue, end) + t
	}
	return end
}

// Time is the band of one kernel as durations.
func (k KernelTime) Band() (low, high time.Duration) { return seconds(k.Time[0]), seconds(k.Time[1]) }
