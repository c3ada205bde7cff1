package feeding

import (
	"fmt"
	"slices"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/launch"
)

// Sizes of the lesson's other measuring cells, written in the cell by the learner.

// Tiny is the launch-bound experiment's forward pass the learner writes in a cell: layers of one
// width at one batch (weights tied, launch.TiedForward).
type Tiny struct{ Batch, Width, Layers int }

// Limits of a Tiny, checked before anything is compiled.
const (
	MaxTinyBatch  = 4096
	MaxTinyWidth  = 4096
	MaxTinyLayers = 64 // 3 executables per layer unfused: 192 compilations at most
)

// DefaultTiny is the lesson's: 16 layers of width 16 at batch 1.
var DefaultTiny = Tiny{Batch: 1, Width: launchWidth, Layers: launchLayers}

// Validate says why a pass is refused.
func (t Tiny) Validate() error {
	switch {
	case t.Batch < 1 || t.Batch > MaxTinyBatch:
		return fmt.Errorf("%s: batch %d refused before anything is compiled: use 1…%d", Lesson, t.Batch, MaxTinyBatch)
	case t.Width < 1 || t.Width > MaxTinyWidth:
		return fmt.Errorf("%s: width %d refused before anything is compiled: use 1…%d", Lesson, t.Width, MaxTinyWidth)
	case t.Layers < 1 || t.Layers > MaxTinyLayers:
		return fmt.Errorf("%s: %d layers refused before anything is compiled: use 1…%d (each is 3 executables unfused)", Lesson, t.Layers, MaxTinyLayers)
	}
	return nil
}

// pass is t as one executable per op or one fused executable.
func (t Tiny) pass(fused bool) launch.TiedForward {
	return launch.TiedForward{Batch: t.Batch, Width: t.Width, Layers: t.Layers, Fused: fused}
}

// Chain is the fusion experiment's elementwise chain the learner writes in a cell: Ops operations
// over N float32 values.
type Chain struct{ N, Ops int }

// Limits of a Chain, checked before anything is allocated.
const (
	MaxChainN   = 256 << 20 // 1 GiB of float32 per array; a few arrays are live at once
	MaxChainOps = 64
)

// DefaultChain is the fusion experiment's chain at scale s: 8 ops over 32 Mi float32 (128 MiB) on a
// laptop, 256 Mi (1 GiB) on a GPU.
func DefaultChain(s experiments.Scale) Chain {
	return Chain{N: experiments.Pick(s, 32<<20, 256<<20), Ops: 8}
}

// Validate says why a chain is refused.
func (c Chain) Validate() error {
	switch {
	case c.N < 1 || c.N > MaxChainN:
		return fmt.Errorf("%s: %d values refused before anything is allocated: use 1…%d (a %d MiB float32 array; the chain holds a few at once)", Lesson, c.N, MaxChainN, MaxChainN*4>>20)
	case c.Ops < 1 || c.Ops > MaxChainOps:
		return fmt.Errorf("%s: %d ops refused: use 1…%d", Lesson, c.Ops, MaxChainOps)
	}
	return nil
}

// chain is c as separate executables or one graph.
func (c Chain) chain(fused bool) launch.ElementwiseChain {
	return launch.ElementwiseChain{N: c.N, Ops: c.Ops, Fused: fused, Type: dtypes.Float32}
}

// Oversub is the oversubscription experiment the learner writes in a cell: the concurrent worker
// counts as multiples of this machine's cores (one worker always comes first: the table and chart
// compare with it), and the matmul jobs shared among them.
type Oversub struct {
	TimesCores []int
	Jobs       int
}

// Limits of an Oversub, checked before anything is compiled.
const (
	MaxOverTimesCores = 16 // each worker holds its own compiled matmul
	MaxOverPoints     = 8
	MaxOverJobs       = 10000
)

// DefaultOversub is the lesson's: 1 worker, then 1, 2, 4 and 8 times the cores, 240 jobs.
var DefaultOversub = Oversub{TimesCores: []int{1, 2, 4, 8}, Jobs: 240}

// Validate says why an oversubscription run is refused.
func (o Oversub) Validate() error {
	if err := experiments.CheckPoints(Lesson, "core multiple", len(o.TimesCores), MaxOverPoints); err != nil {
		return err
	}
	for _, m := range o.TimesCores {
		if m < 1 || m > MaxOverTimesCores {
			return fmt.Errorf("%s: %d× the cores refused before anything is compiled: use 1…%d (this machine has %d cores; every worker compiles its own matmul)",
				Lesson, m, MaxOverTimesCores, devices.NumCPU())
		}
	}
	if o.Jobs < 1 || o.Jobs > MaxOverJobs {
		return fmt.Errorf("%s: %d jobs refused: use 1…%d", Lesson, o.Jobs, MaxOverJobs)
	}
	return nil
}

// Workers is o's concurrent worker counts on this machine: 1, then each multiple of the cores
// (repeats dropped).
func (o Oversub) Workers() []int {
	c := devices.NumCPU()
	ws := []int{1}
	for _, m := range o.TimesCores {
		ws = append(ws, m*c)
	}
	return slices.Compact(ws)
}

// Net is the training step's network the learner writes in a cell: a float32 MLP (trained with Adam
// in the step-parts experiment, with SGD in double-the-work).
type Net struct{ Batch, In, Hidden, Out, Depth int }

// Limits of a Net, checked before anything is compiled or allocated.
const (
	MaxNetDim   = 8192
	MaxNetDepth = 16
	MaxNetBytes = 4 << 30 // parameters, gradients, activations and batch of one float32 step
)

// DefaultNet is the pipeline's network at scale s (Model): batch 64, 256 → 2×256 → 16 on a laptop.
func DefaultNet(s experiments.Scale) Net {
	m := Model(s)
	return Net{Batch: m.Batch, In: m.In, Hidden: m.Hidden, Out: m.Out, Depth: m.Depth}
}

// mlp is n as a float32 SGD MLP.
func (n Net) mlp() workloads.MLP {
	return workloads.MLP{Batch: n.Batch, In: n.In, Hidden: n.Hidden, Out: n.Out, Depth: n.Depth, Type: dtypes.Float32}
}

// Validate says why a network is refused: a size out of range, or a step that needs more memory
// than a cell may take (computed from the shapes, nothing allocated).
func (n Net) Validate() error {
	if err := experiments.CheckMLP(Lesson, MaxNetDim, MaxNetDepth, n.Batch, n.In, n.Hidden, n.Out, n.Depth); err != nil {
		return err
	}
	w := n.mlp()
	w.Optimizer = workloads.Adam
	if b := w.Memory().Total(); b > MaxNetBytes {
		return fmt.Errorf("%s: %v refused before anything is allocated: one step needs %s, over the %s a cell may hold",
			Lesson, w, units.Bytes(float64(b)), units.Bytes(MaxNetBytes))
	}
	return nil
}

// Doubling is the double-the-work test the learner writes in a cell: the sizes of three of its
// workloads, each measured at that size and at twice it (a tiny batch-1 MLP is always the first pair).
type Doubling struct {
	Step    Net // the training step (its batch doubled)
	ChainN  int // float32 values of the fused 8-op chain (doubled)
	MatMulN int // n of the 256×n by n×n matmul (its 256 rows doubled)
}

// MaxDoublingMatMulN is the largest n of the doubling matmul: 2·512·8192² ≈ 6.9·10¹⁰ FLOPs doubled.
const MaxDoublingMatMulN = 8192

// DefaultDoubling is the lesson's at scale s: the pipeline's step, a 16 Mi-value chain (64 MiB: twice
// a laptop's 32 MiB L3 already, so doubling changes no cache level) and n = 1024 on a laptop; 128 Mi
// values and n = 8192 on a GPU.
func DefaultDoubling(s experiments.Scale) Doubling {
	return Doubling{Step: DefaultNet(s), ChainN: DefaultChain(s).N / 2, MatMulN: experiments.Pick(s, 1024, 8192)}
}

// Validate says why a doubling test is refused (every size is checked doubled, nothing allocated).
func (d Doubling) Validate() error {
	if err := d.Step.Validate(); err != nil {
		return err
	}
	twice := d.Step
	twice.Batch *= 2
	if err := twice.Validate(); err != nil {
		return fmt.Errorf("%s: batch %d refused: the test also runs it doubled (%w)", Lesson, d.Step.Batch, err)
	}
	switch {
	case d.ChainN < 1 || d.ChainN > MaxChainN/2:
		return fmt.Errorf("%s: a chain of %d values refused before anything is allocated: use 1…%d (doubled, %d MiB of float32 per array)", Lesson, d.ChainN, MaxChainN/2, MaxChainN*4>>20)
	case d.MatMulN < 1 || d.MatMulN > MaxDoublingMatMulN:
		return fmt.Errorf("%s: matmul n %d refused before anything is allocated: use 1…%d", Lesson, d.MatMulN, MaxDoublingMatMulN)
	}
	return nil
}

// Pairs are d's workloads, each with its doubled version: a batch-1 MLP (batch ×2), the training
// step (batch ×2), the fused chain (elements ×2) and the 256-row matmul (rows ×2).
func (d Doubling) Pairs() [][2]workloads.Workload {
	step := d.Step.mlp()
	step2 := step
	step2.Batch *= 2
	chain := Chain{N: d.ChainN, Ops: 8}.chain(true)
	chain2 := chain
	chain2.N *= 2
	mm := workloads.MatMul{M: 256, K: d.MatMulN, N: d.MatMulN, Type: dtypes.Float32}
	mm2 := mm
	mm2.M *= 2
	tiny := workloads.MLP{Batch: 1, In: 16, Hidden: 16, Depth: 2, Out: 4, Type: dtypes.Float32}
	tiny2 := tiny
	tiny2.Batch *= 2
	return [][2]workloads.Workload{{tiny, tiny2}, {step, step2}, {chain, chain2}, {mm, mm2}}
}
