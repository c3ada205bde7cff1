package datamovement

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Transfers is a copy sweep the learner writes in a cell: the sizes, in bytes, to copy each way.
type Transfers struct {
	Sizes []int // bytes per copy, in the order to time them
}

// Limits of Transfers, checked before anything is allocated.
const (
	MaxTransferBytes = 1 << 30 // a 1 GiB buffer, held twice (host and device) on a CPU device
	MaxTransferSizes = 12
)

// Validate says why transfer sizes are refused: none, too many, or a size out of range.
func (t Transfers) Validate() error {
	if err := experiments.CheckPoints(Lesson, "transfer size", len(t.Sizes), MaxTransferSizes); err != nil {
		return err
	}
	for _, n := range t.Sizes {
		if n < 4 || n > MaxTransferBytes {
			return fmt.Errorf("%s: a copy of %d bytes refused before anything is allocated: use 4 B…%s (one float32 up to the largest buffer this cell holds in memory twice)",
				Lesson, n, units.Bytes(MaxTransferBytes))
		}
	}
	return nil
}

// TransfersHere times the learner's copies both ways on every XLA device here — TransferSweep at
// sizes from the cell, without the recordings (they are at the lesson's sizes).
func TransfersHere(t Transfers) ([]results.Result, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return experiments.LiveOnEachDevice(func(d *devices.Device) ([]results.Result, error) {
		return TransferSweep(d, t.Sizes)
	})
}

// DefaultTransfers is the lesson's copy sweep at scale s — powers of 4 from 4 KiB to 64 MiB on a
// laptop, to 1 GiB on a GPU (what `whygpu record` measures; the notebook's cell writes the laptop
// sizes out).
func DefaultTransfers(s experiments.Scale) Transfers { return Transfers{Sizes: TransferSizes(s)} }

// Model is a float32 MLP the learner writes in a cell for the residency and sync experiments: batch,
// input, hidden width, output and hidden layers.
type Model struct{ Batch, In, Hidden, Out, Depth int }

// Limits of a Model, checked before anything is compiled or allocated.
const (
	MaxModelDim   = 16384   // batch and each width
	MaxModelDepth = 32      // hidden layers
	MaxModelBytes = 4 << 30 // parameters, gradients, activations and batch of one step
)

// MLP is m as the workload it trains (float32, SGD).
func (m Model) MLP() workloads.MLP {
	return workloads.MLP{Batch: m.Batch, In: m.In, Hidden: m.Hidden, Out: m.Out, Depth: m.Depth, Type: dtypes.Float32}
}

// Validate says why a model is refused: a size out of range, or a step that needs more memory than a
// cell may take (computed from the shapes, nothing allocated).
func (m Model) Validate() error {
	if err := experiments.CheckMLP(Lesson, MaxModelDim, MaxModelDepth, m.Batch, m.In, m.Hidden, m.Out, m.Depth); err != nil {
		return err
	}
	if b := m.MLP().Memory().Total(); b > MaxModelBytes {
		return fmt.Errorf("%s: %v refused before anything is allocated: one step needs %s (parameters, gradients, activations, batch), over the %s a cell may hold",
			Lesson, m.MLP(), units.Bytes(float64(b)), units.Bytes(MaxModelBytes))
	}
	return nil
}

// DefaultResident is the residency experiment's model at scale s.
func DefaultResident(s experiments.Scale) Model {
	return experiments.Pick(s, Model{Batch: 64, In: 256, Hidden: 512, Out: 16, Depth: 2},
		Model{Batch: 256, In: 1024, Hidden: 4096, Out: 64, Depth: 4})
}

// Loop is the sync experiment's training loop: its model, the steps of each run, and the µs of real
// CPU work per step (logging, bookkeeping) an asynchronous launch can overlap.
type Loop struct {
	Model      Model
	Steps      int
	HostWorkUS int
}

// Limits of a Loop besides its Model's.
const (
	MaxLoopSteps      = 10000
	MaxLoopHostWorkUS = 100000 // 0.1 s of CPU work per step
)

// Validate says why a loop is refused: its model, or steps or host work out of range.
func (l Loop) Validate() error {
	if err := l.Model.Validate(); err != nil {
		return err
	}
	if l.Steps < 1 || l.Steps > MaxLoopSteps {
		return fmt.Errorf("%s: %d steps refused: use 1…%d (each loop runs three times per variant)", Lesson, l.Steps, MaxLoopSteps)
	}
	if l.HostWorkUS < 0 || l.HostWorkUS > MaxLoopHostWorkUS {
		return fmt.Errorf("%s: %d µs of host work per step refused: use 0…%d", Lesson, l.HostWorkUS, MaxLoopHostWorkUS)
	}
	return nil
}

// DefaultLoop is the sync experiment's loop at scale s.
func DefaultLoop(s experiments.Scale) Loop {
	return Loop{Model: experiments.Pick(s, Model{Batch: 32, In: 256, Hidden: 256, Out: 16, Depth: 2},
		Model{Batch: 256, In: 1024, Hidden: 2048, Out: 64, Depth: 4}),
		Steps: experiments.Pick(s, 30, 200), HostWorkUS: 2000}
}

// MatMul is the n×n float32 matmul the unsynced-timing cell times.
type MatMul struct{ N int }

// MaxMatMulN is the largest side the unsynced-timing cell may ask for.
const MaxMatMulN = 8192

// Validate says why a side is refused.
func (m MatMul) Validate() error {
	if m.N < 1 || m.N > MaxMatMulN {
		return fmt.Errorf("%s: side %d refused before anything is allocated: use 1…%d (three %d×%d float32 matrices are %s)",
			Lesson, m.N, MaxMatMulN, MaxMatMulN, MaxMatMulN, units.Bytes(3*4*float64(MaxMatMulN)*MaxMatMulN))
	}
	return nil
}

// DefaultMatMul is the unsynced experiment's matmul at scale s: 512 on a laptop, 4096 on a GPU.
func DefaultMatMul(s experiments.Scale) MatMul { return MatMul{N: experiments.Pick(s, 512, 4096)} }
