package feeding

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// TestReadWorkers: the measured share beside the model's, per live run.
func TestReadWorkers(t *testing.T) {
	r := results.Result{Params: map[string]int{ParamWorkers: 1}}
	r.SetMetric(ParamStepUS, 1000)
	r.SetMetric(ParamCostUS, 2000)
	r.SetMetric(ParamUtilPM, 450)
	if got := ReadWorkers([]results.Result{r}); !strings.Contains(got, "1 worker(s) 45% (model 50%)") {
		t.Errorf("ReadWorkers = %q", got)
	}
	if got := ReadWorkers(nil); !strings.Contains(got, "run the sweep cell") {
		t.Errorf("ReadWorkers(nil) = %q", got)
	}
}

// TestReadShares: shares and the whole step against the parts' sum.
func TestReadShares(t *testing.T) {
	part := func(name string, flops float64, d time.Duration) results.Result {
		r := results.Result{Workload: name, FLOPs: flops}
		r.Provenance.Device = "xla:cpu"
		r.Stats.Median = d
		return r
	}
	rs := []results.Result{part("mlp-part-matmuls", 90, 4*time.Millisecond), part("mlp-part-optimizer", 10, 6*time.Millisecond), part("mlp-step", 100, 5*time.Millisecond)}
	got := ReadShares(rs)
	if !strings.Contains(got, "matmuls do 90% of the FLOPs in 40% of the parts' time") || !strings.Contains(got, "took 50% of the parts' sum") {
		t.Errorf("ReadShares = %q", got)
	}
}
