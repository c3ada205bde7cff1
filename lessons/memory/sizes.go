package memory

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Sizes is a memory sweep the learner writes in a cell: the network's width and depth and the batch
// sizes to measure (the lesson's Adam MLP, float32, otherwise).
type Sizes struct {
	Width   int   // inputs and hidden width
	Depth   int   // hidden layers
	Batches []int // batch sizes, in the order to measure them
}

// Limits of Sizes, checked before anything is compiled or allocated; a step that passes them but
// not this machine's memory is refused by Budget, also before allocating.
const (
	MaxSweepWidth   = 8192
	MaxSweepDepth   = 32
	MaxSweepBatch   = 1 << 20
	MaxSweepBatches = 8
)

// model is the lesson's MLP at the cell's width, depth and batch.
func (s Sizes) model(batch int) workloads.MLP {
	return workloads.MLP{Batch: batch, In: s.Width, Hidden: s.Width, Depth: s.Depth, Out: 16, Type: dtypes.Float32, Optimizer: workloads.Adam}
}

// Validate says why sizes are refused: no batch, too many, a width, depth or batch out of range.
func (s Sizes) Validate() error {
	if err := experiments.CheckPoints(Lesson, "batch size", len(s.Batches), MaxSweepBatches); err != nil {
		return err
	}
	switch {
	case s.Width < 1 || s.Width > MaxSweepWidth:
		return fmt.Errorf("%s: width %d refused: use 1…%d", Lesson, s.Width, MaxSweepWidth)
	case s.Depth < 1 || s.Depth > MaxSweepDepth:
		return fmt.Errorf("%s: depth %d refused: use 1…%d hidden layers", Lesson, s.Depth, MaxSweepDepth)
	}
	for _, b := range s.Batches {
		if b < 1 || b > MaxSweepBatch {
			return fmt.Errorf("%s: batch %d refused before anything is allocated: use 1…%d (its activations alone would be %.3g GB by the formula)",
				Lesson, b, MaxSweepBatch, float64(s.model(max(b, 0)).Memory().Activations)/1e9)
		}
	}
	return nil
}

// SweepSizes measures the peak memory of a training step at the learner's sizes on the default
// device, as SweepHere does at the lesson's (without the recordings, which are at the lesson's
// sizes). A step that cannot fit in Usable memory is refused by Budget before it is allocated.
func SweepSizes(s Sizes, step func(done, total int, what string)) ([]results.Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	var models []workloads.MLP
	for _, b := range s.Batches {
		w := s.model(b)
		if err := Budget(dev, w); err != nil {
			return nil, err
		}
		models = append(models, w)
	}
	return sweepModels(dev, s.model(8), models, step, measureFrom)
}
