package predict

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Kept recalls the results an earlier cell kept under name (results.Recall) and returns those
// measured live on the device named dev ("xla:cpu", "go", …), in order. The error names the cell
// to run when nothing was measured there yet.
func Kept(name, dev string) ([]results.Result, error) {
	rs, err := results.Recall(name)
	if err != nil {
		return nil, err
	}
	var out []results.Result
	for _, r := range rs {
		if r.Provenance.Device == dev && !r.Provenance.Recorded {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("predict: the results kept under %q hold nothing measured live on %s: run the measuring cell above first", name, dev)
	}
	if why := results.WhyDisturbed(out...); why != "" {
		keptDisturbed.CompareAndSwap("", why)
	}
	return out, nil
}

// keptDisturbed is what first disturbed the results Kept returned since Reveal (one at a time, under
// revealMu) cleared it, so that the reveal marks a number read from disturbed measurements
// (Comparison.Disturbed).
var (
	revealMu      sync.Mutex
	keptDisturbed atomic.Value // string
)

// Ends returns the results with the smallest and the largest value of a shape parameter.
func Ends(rs []results.Result, param string) (lo, hi results.Result, err error) {
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
func Where(rs []results.Result, param string, v int) (results.Result, error) {
	for _, r := range rs {
		if got, ok := r.Params[param]; ok && got == v {
			return r, nil
		}
	}
	return results.Result{}, fmt.Errorf("predict: no result with %s = %d", param, v)
}

// KeptAny is Kept for lessons that measure on the default device (the GPU when there is one): the
// live results of the first device found among those kept under name.
func KeptAny(name string) ([]results.Result, error) {
	rs, err := results.Recall(name)
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
