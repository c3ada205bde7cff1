package race

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Splits is a split the learner writes in a cell: the FLOPs to spend and the matmul sides to spend
// them on (each side n does budget / 2n³ calls of an n×n float32 matmul).
type Splits struct {
	Budget float64 // FLOPs of every split: 1 << 25 in the lesson
	Sides  []int   // matrix sides, in the order to time them
}

// Limits of Splits, checked before anything is compiled or allocated.
const (
	MaxSplitSide  = 4096    // three 4096² float32 matrices are 192 MiB
	MaxSplitCalls = 100_000 // at tens of µs per call, seconds per side
	MaxSplitSides = 8
)

// Validate says why a split is refused: no sides, too many, a side out of range, a budget that
// does not hold one matmul of a side or would take too many calls of another.
func (s Splits) Validate() error {
	if err := experiments.CheckPoints(Lesson, "matrix side", len(s.Sides), MaxSplitSides); err != nil {
		return err
	}
	for _, n := range s.Sides {
		if n < 1 || n > MaxSplitSide {
			return fmt.Errorf("%s: side %d refused before anything is allocated: use 1…%d", Lesson, n, MaxSplitSide)
		}
		one := 2 * float64(n) * float64(n) * float64(n)
		if !(s.Budget >= one) {
			return fmt.Errorf("%s: a budget of %.3g FLOPs does not hold one %d×%d matmul (%.3g FLOPs): raise the budget or drop the side", Lesson, s.Budget, n, n, one)
		}
		if calls := s.Budget / one; calls > MaxSplitCalls {
			return fmt.Errorf("%s: side %d would take %.3g calls for %.3g FLOPs: at most %d (raise the side or lower the budget)", Lesson, n, calls, s.Budget, MaxSplitCalls)
		}
	}
	return nil
}

// SplitsHere times the learner's split on every XLA device here (the same measurement as
// SmallVsLarge, without the Go backend and the recordings, which are at the lesson's split).
func SplitsHere(s Splits, progress experiments.Progress) ([]results.Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return experiments.LiveOnEachDevice(func(d *devices.Device) ([]results.Result, error) {
		return SmallVsLargeOn(d, s.Budget, s.Sides, progress)
	})
}
