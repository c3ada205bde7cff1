package feeding

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Loader is the worker counts the learner writes in a cell for their own loader sweep.
type Loader struct {
	Workers []int // loader goroutines to try, in order
}

// Limits of a Loader, checked before anything runs.
const (
	MaxLoaderWorkers = 64
	MaxLoaderPoints  = 8
)

// Validate says why worker counts are refused.
func (l Loader) Validate() error {
	if err := experiments.CheckPoints(Lesson, "worker count", len(l.Workers), MaxLoaderPoints); err != nil {
		return err
	}
	for _, k := range l.Workers {
		if k < 1 || k > MaxLoaderWorkers {
			return fmt.Errorf("%s: %d loader workers refused before anything starts: use 1…%d (this machine has %d cores)", Lesson, k, MaxLoaderWorkers, devices.NumCPU())
		}
	}
	return nil
}

// SweepLoader trains from the loader at the learner's worker counts on the default device (the
// same measurement as SweepHere) and keeps the results under KeepName("yours").
func SweepLoader(l Loader, step func(done, total int, what string)) ([]results.Result, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	rs, _, err := WorkersSweep(dev, experiments.CurrentScale(), l.Workers, step)
	if err != nil {
		return rs, err
	}
	return rs, results.Keep(Lesson+"-yours", rs)
}
