package experiments

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Progress reports a sweep's progress; display.Progress's Step method is one (nil: silent).
type Progress func(done, total int, format string, args ...any)

// Report calls p when it is not nil.
func (p Progress) Report(done, total int, format string, args ...any) {
	if p != nil {
		p(done, total, format, args...)
	}
}

// Filter returns the results keep accepts.
func Filter(rs []results.Result, keep func(results.Result) bool) []results.Result {
	var out []results.Result
	for _, r := range rs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// HasGPU reports whether any result (live or recorded) is from a GPU.
func HasGPU(rs []results.Result) bool {
	for _, r := range rs {
		if r.Provenance.Device == devices.CUDA || r.Provenance.Device == devices.CUDANoTF32 {
			return true
		}
	}
	return false
}

// CheckPoints says why a sweep a learner wrote in a cell is refused before anything runs: it has no
// points, or more than max (which keeps it in seconds). lesson starts the message; point names one
// point ("batch size", "worker count"), n is how many were given. Each lesson still checks the
// range of every point itself.
func CheckPoints(lesson, point string, n, max int) error {
	switch {
	case n == 0:
		return fmt.Errorf("%s: give at least one %s", lesson, point)
	case n > max:
		return fmt.Errorf("%s: %d %ss: at most %d keep the sweep in seconds", lesson, n, point, max)
	}
	return nil
}

// Dim is one named size of a learner's experiment ("batch", "Hidden"), checked by CheckDims.
type Dim struct {
	Name  string
	Value int
}

// CheckDims refuses the first of dims outside 1…max, naming it and the range, so a cell's sizes are
// refused before anything is compiled or allocated.
func CheckDims(lesson string, max int, dims ...Dim) error {
	for _, d := range dims {
		if d.Value < 1 || d.Value > max {
			return fmt.Errorf("%s: %s %d refused before anything is allocated: use 1…%d", lesson, d.Name, d.Value, max)
		}
	}
	return nil
}

// CheckMLP refuses a cell's fully connected network whose batch or widths are outside 1…maxDim or
// whose depth is outside 1…maxDepth hidden layers (CheckDims, then CheckDepth).
func CheckMLP(lesson string, maxDim, maxDepth, batch, in, hidden, out, depth int) error {
	if err := CheckDims(lesson, maxDim, Dim{"batch", batch}, Dim{"In", in}, Dim{"Hidden", hidden}, Dim{"Out", out}); err != nil {
		return err
	}
	return CheckDepth(lesson, depth, maxDepth)
}

// CheckDepth refuses a network depth outside 1…max hidden layers.
func CheckDepth(lesson string, depth, max int) error {
	if depth < 1 || depth > max {
		return fmt.Errorf("%s: depth %d refused: use 1…%d hidden layers", lesson, depth, max)
	}
	return nil
}
