package precision

import (
	"strings"
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func timed(dev, dtype, precision string, d time.Duration) results.Result {
	r := results.Result{DType: dtype, Precision: precision, Label: "matmul 512", Params: map[string]int{"n": 512}}
	r.Provenance.Device = dev
	r.Stats.Median = d
	return r
}

// TestReadDTypes: the sentence is computed from the results, and a recorded device is left out.
func TestReadDTypes(t *testing.T) {
	rec := timed("xla:cuda", "bfloat16", "bfloat16", time.Millisecond)
	rec.Provenance.Recorded = true
	slow := []results.Result{timed("xla:cpu", "float32", "float32", 10*time.Millisecond), timed("xla:cpu", "bfloat16", "bfloat16", 15*time.Millisecond), rec}
	got := ReadDTypes(slow)
	if !strings.Contains(got, "bfloat16 1.50×") || !strings.Contains(got, "0.67× float32's speed") || strings.Contains(got, "xla:cuda") {
		t.Errorf("ReadDTypes = %q", got)
	}
	fast := []results.Result{timed("xla:cpu", "float32", "float32", 10*time.Millisecond), timed("xla:cpu", "bfloat16", "bfloat16", 4*time.Millisecond)}
	if got := ReadDTypes(fast); !strings.Contains(got, "2.5× faster than float32") {
		t.Errorf("ReadDTypes(fast) = %q", got)
	}
	if got := ReadDTypes(nil); !strings.Contains(got, "run the throughput cell") {
		t.Errorf("ReadDTypes(nil) = %q", got)
	}
}

// TestReadStudyAndScaling: the sentences follow the census.
func TestReadStudyAndScaling(t *testing.T) {
	w := "weights and biases"
	us := []Underflow{
		{Steps: 0, Loss: 1, Rows: []Census{{What: w, Scale: 1, Nonzero32: 100, MinAbs: 1e-6}, {What: w, Scale: 1 << 24, Nonzero32: 100, Inf16: 3}}},
		{Steps: 3000, Loss: 0.01, Rows: []Census{{What: w, Scale: 1, Nonzero32: 100, Zero16: 5, Subnormal: 40, MinAbs: 1e-10},
			{What: w, Scale: 1 << 8, Nonzero32: 100, Zero16: 1}, {What: w, Scale: 1 << 16, Nonzero32: 100, RelErr16: 2e-4}}},
	}
	if got := ReadStudy(us); !strings.Contains(got, "lost 5.00%") || !strings.Contains(got, "40.00% as subnormals") || !strings.Contains(got, "bfloat16 lost 0") {
		t.Errorf("ReadStudy = %q", got)
	}
	got := ReadScaling(us)
	if !strings.Contains(got, "S = "+scaleName(1<<16)+" is the smallest") || !strings.Contains(got, "overflowed to Inf at S = "+scaleName(1<<24)+" (3 weights and biases)") {
		t.Errorf("ReadScaling = %q", got)
	}
	if got := ReadStudy(nil); !strings.Contains(got, "run the study cell") {
		t.Errorf("ReadStudy(nil) = %q", got)
	}
}

// TestReadMixed: step time and loss against float32's, per live device.
func TestReadMixed(t *testing.T) {
	f32 := timed("xla:cpu", dtypes.Float32.String(), "", 10*time.Millisecond)
	f32.SetMetric(MetricLoss, 0.5)
	f32.SetMetric(MetricActivationBytes, 1000)
	bf := timed("xla:cpu", dtypes.BFloat16.String(), "", 12*time.Millisecond)
	bf.SetMetric(MetricLoss, 0.505)
	bf.SetMetric(MetricActivationBytes, 500)
	got := ReadMixed([]results.Result{f32, bf})
	if !strings.Contains(got, "1.20× float32's step time") || !strings.Contains(got, "loss +1.00%") || !strings.Contains(got, "activations 0.50×") {
		t.Errorf("ReadMixed = %q", got)
	}
}
