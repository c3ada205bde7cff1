package stepcharts

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
)

// The model card's "model vs recording" list: one line saying there is no recording while
// lessons/reference/ is empty; once a recording lands, a line per recorded training step with the
// model's error against it, and a line for a recording the model is not compared with. The fixture
// recordings are made up (an H200 that is not here, relabeled into a temporary reference
// directory, never lessons/reference/): they only have to lie inside and outside the model's band.
func TestCardVersus(t *testing.T) {
	devicetest.NeedCPUPlugin(t) // the step model's kernels are counted on xla:cpu
	t.Setenv("WHYGPU_ROOT", t.TempDir())
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	if got, err := CardVersus(); err != nil || len(got) != 1 || got[0] != NoRecordingYet {
		t.Fatalf("with nothing recorded: %q, %v", got, err)
	}
	h200 := results.Provenance{Device: devices.CUDA, Model: "NVIDIA H200 (139 GiB)", TF32: true,
		Date: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	step := func(batch, hidden int, d time.Duration) results.Result {
		w := experiments.CourseMLP(batch, hidden)
		return results.Result{Workload: w.Name(), Label: w.String(), DType: "float32", Params: w.Params(), FLOPs: w.FLOPs(),
			Stats: results.Stats{Median: d}, Provenance: h200}
	}
	band := gpumodel.StepEstimate(experiments.CourseMLP(256, 64))
	run := func(*devices.Device, experiments.Scale) ([]results.Result, error) { return nil, nil }
	for _, tc := range []struct {
		e  experiments.Experiment
		rs []results.Result
	}{
		{experiments.Experiment{Lesson: "01-race", Name: "sweep", Run: run}, []results.Result{step(256, 64, (band.Low+band.High)/2), step(256, 64, 2*band.High)}},
		{experiments.Experiment{Lesson: "05-precision", Name: "matmul", Run: run}, []results.Result{{Workload: "matmul", Label: "bf16 matmul", Stats: results.Stats{Median: time.Millisecond}, Provenance: h200}}},
	} {
		if _, err := experiments.SaveReference(tc.e, tc.rs); err != nil {
			t.Fatal(err)
		}
	}
	got, err := CardVersus()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		"nvidia-h200 · 01-race/sweep: model vs recording: +0%",
		"nvidia-h200 · 01-race/sweep: model vs recording: +100%",
		"nvidia-h200 · 05-precision/matmul: recorded (1 results); none is the course's training step",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	if len(got) != 3 || strings.Contains(text, "no recording yet") {
		t.Errorf("want 3 lines and no 'no recording yet':\n%s", text)
	}
}
