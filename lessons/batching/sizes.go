package batching

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Sizes is a sweep the learner writes in a cell: one hidden width and the batch sizes to time.
type Sizes struct {
	Hidden  int   // hidden width of the MLP (64→Hidden→Hidden→10)
	Batches []int // batch sizes, in the order to time them
}

// Limits of Sizes, checked before anything is compiled or allocated.
const (
	MaxSweepBatch  = 65536
	MaxSweepHidden = 8192
	MaxSweepPoints = 16
)

// Validate says why sizes are refused: an empty list, a batch or width out of range, too many points.
func (s Sizes) Validate() error {
	if err := experiments.CheckPoints(Lesson, "batch size", len(s.Batches), MaxSweepPoints); err != nil {
		return err
	}
	if s.Hidden < 1 || s.Hidden > MaxSweepHidden {
		return fmt.Errorf("%s: hidden width %d refused: use 1…%d", Lesson, s.Hidden, MaxSweepHidden)
	}
	for _, b := range s.Batches {
		if b < 1 || b > MaxSweepBatch {
			return fmt.Errorf("%s: batch %d refused before anything is allocated: use 1…%d (its activations alone would be %d × %d float32 values = %.3g GB per layer)",
				Lesson, b, MaxSweepBatch, b, s.Hidden, float64(b)*float64(s.Hidden)*4/1e9)
		}
	}
	return nil
}

// SweepSizes times the training step at the learner's sizes on every XLA device here and keeps the
// results (KeepName("yours")) — the same measurement as BatchSweep, at sizes from the cell.
func SweepSizes(s Sizes, progress experiments.Progress) ([]results.Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	out, err := experiments.SweepEveryDevice(experiments.Grid(s.Batches, []int{s.Hidden}), progress)
	return out, results.KeepOr(KeepName("yours"), out, err)
}
