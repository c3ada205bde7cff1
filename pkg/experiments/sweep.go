package experiments

import (
	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
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
func Filter(rs []measure.Result, keep func(measure.Result) bool) []measure.Result {
	var out []measure.Result
	for _, r := range rs {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// HasGPU reports whether any result (live or recorded) is from a GPU.
func HasGPU(results []measure.Result) bool {
	for _, r := range results {
		if r.Provenance.Device == devices.CUDA || r.Provenance.Device == devices.CUDANoTF32 {
			return true
		}
	}
	return false
}
