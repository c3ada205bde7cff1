package dataparallel

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// AllReduce is an all-reduce sweep the learner writes in a cell: over how many devices, and the
// gradient sizes (float32 values) to sum across them.
type AllReduce struct {
	Devices int   // devices taking part (the default device's backend must expose them)
	Values  []int // float32 values per gradient, in the order to time them
}

// Limits of AllReduce, checked before anything is allocated.
const (
	MaxAllReduceValues = 1 << 26 // 256 MiB of float32 on every device
	MaxAllReduceSizes  = 8
	MaxAllReduceDevs   = 64
)

// Validate says why a sweep is refused: no size, too many, a size or device count out of range.
func (a AllReduce) Validate() error {
	if err := experiments.CheckPoints(Lesson, "gradient size", len(a.Values), MaxAllReduceSizes); err != nil {
		return err
	}
	switch {
	case a.Devices < 2 || a.Devices > MaxAllReduceDevs:
		return fmt.Errorf("%s: %d devices refused: an all-reduce needs 2…%d", Lesson, a.Devices, MaxAllReduceDevs)
	}
	for _, n := range a.Values {
		if n < 1 || n > MaxAllReduceValues {
			return fmt.Errorf("%s: a gradient of %d values refused before anything is allocated: use 1…%d (%s of float32 on each of the %d devices)",
				Lesson, n, MaxAllReduceValues, units.Bytes(4*MaxAllReduceValues), a.Devices)
		}
	}
	return nil
}

// AllReduceAt times the learner's all-reduces on the default device's devices — AllReduceSweepOn
// at sizes from the cell. Asking for more devices than the backend exposes is an error that says
// how many there are.
func AllReduceAt(a AllReduce, progress func(done, total int, format string, args ...any)) ([]results.Result, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	dev, err := splitDevice()
	if err != nil {
		return nil, err
	}
	if n := dev.Backend().NumDevices(); a.Devices > n {
		return nil, fmt.Errorf("%s: %d devices asked for, %s exposes %d: lower Devices", Lesson, a.Devices, dev.Name, n)
	}
	return AllReduceSweepOn(dev, a.Devices, a.Values, progress)
}

// State is the GPT whose training state MeasureMemory reads, as the learner writes it in a cell:
// lesson 09's GPT (GPT) with its width, depth, heads and context changed; its vocabulary and batch
// of 4 sequences stay.
type State struct {
	Embed   int // model width; a multiple of Heads
	Layers  int // transformer blocks
	Heads   int // attention heads
	Context int // sequence length
}

// Limits of State, checked before anything is compiled or allocated.
const (
	MaxStateEmbed   = 2048
	MaxStateLayers  = 24
	MaxStateContext = 2048
	MaxStateParams  = 1 << 27 // weights, gradients and Adam's two moments in float32: 2 GiB
)

// Model is lesson 09's GPT with the state's sizes.
func (s State) Model() gpt.GPT {
	g := GPT()
	g.Embed, g.Layers, g.Heads, g.Context = s.Embed, s.Layers, s.Heads, s.Context
	return g
}

// Validate says why a state measurement is refused: a width, depth, head count or context out of
// range, heads that do not divide the width, or more parameters than its state fits in memory.
func (s State) Validate() error {
	switch {
	case s.Embed < 1 || s.Embed > MaxStateEmbed:
		return fmt.Errorf("%s: width %d refused before anything is allocated: use 1…%d", Lesson, s.Embed, MaxStateEmbed)
	case s.Layers < 1 || s.Layers > MaxStateLayers:
		return fmt.Errorf("%s: %d layers refused: use 1…%d", Lesson, s.Layers, MaxStateLayers)
	case s.Heads < 1 || s.Embed%s.Heads != 0:
		return fmt.Errorf("%s: %d heads refused: use a number of heads that divides the width %d", Lesson, s.Heads, s.Embed)
	case s.Context < 2 || s.Context > MaxStateContext:
		return fmt.Errorf("%s: context %d refused before anything is allocated: use 2…%d", Lesson, s.Context, MaxStateContext)
	}
	if p := s.Model().NumParams(); p > MaxStateParams {
		return fmt.Errorf("%s: %.3g parameters refused before anything is allocated: weights, gradients and Adam's two moments would take %s; at most %d",
			Lesson, float64(p), units.Bytes(16*float64(p)), MaxStateParams)
	}
	return nil
}
