package dataparallel

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/units"
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
func AllReduceAt(a AllReduce, progress func(done, total int, format string, args ...any)) ([]measure.Result, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	if n := dev.Backend().NumDevices(); a.Devices > n {
		return nil, fmt.Errorf("%s: %d devices asked for, %s exposes %d: lower Devices", Lesson, a.Devices, dev.Name, n)
	}
	return AllReduceSweepOn(dev, a.Devices, a.Values, progress)
}
