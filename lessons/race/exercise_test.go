package race

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The step-FLOPs exercise and the doubling prediction read the learner's own doubling test.
func TestStepFLOPsAgainstTheDoublingTest(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	var rs []results.Result
	for i, p := range (Doubling{Batch: 1, Values: 1 << 10, MatMulN: 64}).Pairs() {
		for k, w := range p {
			d := time.Duration(20+5*k) * time.Microsecond
			params := workloads.ParamsOf(w)
			params[regime.ParamPair], params[regime.ParamSize] = i, k+1
			rs = append(rs, results.Result{Workload: w.Name(), Label: w.String(), Params: params, FLOPs: workloads.FLOPsOf(w), Bytes: workloads.BytesOf(w),
				Stats: results.Stats{N: 5, Median: d, Min: d, P90: d, Mean: d}, CeilingFLOPS: 50e9, CeilingBytesPerSec: 5e9,
				Provenance: results.Provenance{Device: devices.CPU, Run: results.RunID(), Date: time.Now()}})
		}
	}
	if err := results.Keep(KeepDouble, rs); err != nil {
		t.Fatal(err)
	}
	if r, err := PredictStepDoubling.Answer(); err != nil || r != 1.25 {
		t.Errorf("PredictStepDoubling = %v, %v; want 1.25", r, err)
	}
	rep := ExerciseStepFLOPs.Check(func(b, d, h float64) float64 { return 6 * b * d * h })
	if rep.Versus == nil || rep.Versus.Err != nil {
		t.Fatalf("no measurement beside the right answer: %+v", rep.Versus)
	}
	if l := rep.VersusLine(); !strings.Contains(l, "one 64→64 layer at batch 1") || !strings.Contains(l, "of the 50 GFLOP/s your matmul ceiling measured") {
		t.Errorf("versus line: %q", l)
	}
}
