package memory

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// TestReadSweep: the sentence is computed from the largest batch of the first device's results.
func TestReadSweep(t *testing.T) {
	var rs []results.Result
	for _, b := range []int{64, 512} {
		w := Model(experiments.Laptop, b)
		r := results.Result{Params: w.Params()}
		r.Provenance.Device = "xla:cpu"
		r.SetMetric(ParamMeasured, 2*float64(w.Memory().Total()))
		rs = append(rs, r)
	}
	got := ReadSweep(rs)
	if !strings.Contains(got, "At batch 512 (xla:cpu)") || !strings.Contains(got, "is 2× it — above the formula") {
		t.Errorf("ReadSweep = %q", got)
	}
	if got := ReadSweep(nil); !strings.Contains(got, "run the sweep cell") {
		t.Errorf("ReadSweep(nil) = %q", got)
	}
}
