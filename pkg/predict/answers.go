package predict

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/measure"
)

// Kept recalls the results an earlier cell kept under name (measure.Recall) and returns those
// measured live on the device named dev ("xla:cpu", "go", …), in order. The error names the cell
// to run when nothing was measured there yet.
func Kept(name, dev string) ([]measure.Result, error) {
	rs, err := measure.Recall(name)
	if err != nil {
		return nil, err
	}
	var out []measure.Result
	for _, r := range rs {
		if r.Provenance.Device == dev && !r.Provenance.Recorded {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("predict: the results kept under %q hold nothing measured live on %s: run the measuring cell above first", name, dev)
	}
	return out, nil
}

// Ends returns the results with the smallest and the largest value of a shape parameter.
func Ends(rs []measure.Result, param string) (lo, hi measure.Result, err error) {
	found := false
	for _, r := range rs {
		v, ok := r.Params[param]
		if !ok {
			continue
		}
		if !found || v < lo.Params[param] {
			lo = r
		}
		if !found || v > hi.Params[param] {
			hi = r
		}
		found = true
	}
	if !found {
		return lo, hi, fmt.Errorf("predict: no result has the parameter %q", param)
	}
	return lo, hi, nil
}

// Where returns the first result whose parameter param equals v.
func Where(rs []measure.Result, param string, v int) (measure.Result, error) {
	for _, r := range rs {
		if got, ok := r.Params[param]; ok && got == v {
			return r, nil
		}
	}
	return measure.Result{}, fmt.Errorf("predict: no result with %s = %d", param, v)
}

// KeptAny is Kept for lessons that measure on the default device (the GPU when there is one): the
// live results of the first device found among those kept under name.
func KeptAny(name string) ([]measure.Result, error) {
	rs, err := measure.Recall(name)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if !r.Provenance.Recorded {
			return Kept(name, r.Provenance.Device)
		}
	}
	return nil, fmt.Errorf("predict: the results kept under %q hold nothing measured live: run the measuring cell above first", name)
}
