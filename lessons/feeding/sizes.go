package feeding

import (
	"fmt"
	"slices"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Sizes of the lesson's other measuring cells, written in the cell by the learner.

// Tiny is the launch-bound experiment's forward pass the learner writes in a cell: layers of one
// width at one batch (weights tied, workloads.TiedForward).
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
func (t Tiny) pass(fused bool) workloads.TiedForward {
	return workloads.TiedForward{Batch: t.Batch, Width: t.Width, Layers: t.Layers, Fused: fused}
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
func (c Chain) chain(fused bool) workloads.ElementwiseChain {
	return workloads.ElementwiseChain{N: c.N, Ops: c.Ops, Fused: fused, Type: dtypes.Float32}
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
