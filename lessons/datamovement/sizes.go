package datamovement

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/units"
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
func TransfersHere(t Transfers) ([]measure.Result, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return experiments.LiveOnEachDevice(func(d *devices.Device) ([]measure.Result, error) {
		return TransferSweep(d, t.Sizes)
	})
}
