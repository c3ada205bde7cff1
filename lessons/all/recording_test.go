package all

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/lessons/batching"
	"github.com/gpu-course/whygpu/lessons/race"
	"github.com/gpu-course/whygpu/lessons/roofline"
	"github.com/gpu-course/whygpu/lessons/smallgpt"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// h200 is the provenance of the test's fixture recordings: an H200 that is not here. The numbers
// recorded under it are made up for the test (a fixture in a temporary reference directory, never
// in lessons/reference/): they only have to lie inside and outside the model's band.
var h200 = results.Provenance{Device: devices.CUDA, Model: "NVIDIA H200 (139 GiB)", TF32: true,
	Date: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}

func recordedStep(batch, hidden int, d time.Duration) results.Result {
	w := experiments.CourseMLP(batch, hidden)
	return results.Result{Workload: w.Name(), Label: w.String(), DType: "float32", Params: w.Params(), FLOPs: w.FLOPs(),
		Stats: results.Stats{Median: d}, Provenance: h200}
}

// When a GPU recording exists for a size, every place that shows it beside the GPU model says how far
// the model is from it ("model vs recording: +x%"), labeled as a model: the race's lane, lesson 1's
// sweep line and chart, lesson 3's tables and crossover lines, lesson 2's ridge-batch table and
// lesson 9's MFU rows. The recordings are written into a temporary reference directory and found the
// way a real one in lessons/reference/<gpu>/ would be.
func TestModelIsComparedWithRecordings(t *testing.T) {
	devicetest.NeedCPUPlugin(t) // the step model's kernels are counted on xla:cpu
	t.Setenv("WHYGPU_ROOT", t.TempDir())
	band := gpumodel.StepEstimate(experiments.CourseMLP(256, 64))
	above := gpumodel.StepEstimate(experiments.CourseMLP(1, 64)).High * 2 // +100%
	inside := (band.Low + band.High) / 2                                  // +0%
	steps := []results.Result{recordedStep(1, 64, above), recordedStep(256, 64, inside)}
	if _, err := experiments.SaveReference(experiments.Experiment{Lesson: race.Lesson, Name: race.StepSweepName}, steps); err != nil {
		t.Fatal(err)
	}
	var sweep []results.Result
	for _, b := range race.Batches {
		sweep = append(sweep, cpuResult(b, 64, time.Duration(20+b)*time.Microsecond))
	}
	sweep, err := experiments.WithRecordedWhere(sweep, race.Lesson, race.StepSweepName, experiments.HiddenIs(64))
	if err != nil || !experiments.HasGPU(sweep) {
		t.Fatalf("the fixture recording was not found (err %v)", err)
	}

	c := smallgpt.Config(experiments.GPU)
	gpt := results.Result{Label: c.String(), DType: "float32", FLOPs: c.FLOPs(), Provenance: h200,
		Stats: results.Stats{Median: gpumodel.GPTStepEstimate(c).Low / 2}} // -50%
	gpt.Provenance.Recorded = true
	mm := workloads.MatMul{M: 64, K: 1024, N: 1024}
	e := gpumodel.Default().Estimate(gpumodel.MatMul(64, 1024, 1024, "bfloat16", 2*float64(64*1024*2+1024*1024)))
	matmul := results.Result{Label: "bf16 matmul", DType: "bfloat16", Params: mm.Params(), Provenance: h200,
		Stats: results.Stats{Median: e.High * 3}} // +200%
	matmul.Provenance.Recorded = true

	lane := race.GPULane(1, 64)
	var gptRows strings.Builder
	for _, r := range smallgpt.ModelVersusRows([]results.Result{gpt}) {
		gptRows.WriteString(strings.Join(r, " | ") + "\n")
	}
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"race lane", lane.Device + " " + lane.TimeText() + " " + lane.Describe(), []string{"model vs recording: +100%"}},
		{"stepcharts.TimeSeries", legends(stepcharts.TimeSeries(sweep, experiments.Batch)), []string{"recorded on NVIDIA H200", stepcharts.StepModelName}},
		{"batching.Occupancy", batching.OccupancyTable(sweep, 64).String(), []string{"model vs recording: +100%", "model vs recording: +0%"}},
		{"batching.Crossover", batching.Crossover(sweep, 64), []string{"model vs recording: +100%", "model vs recording: +0%", "batch 256 × hidden 64"}},
		{"batching.PeakShare", batching.PeakShareTable(sweep).String(), []string{"model vs recording: +100%"}},
		{"roofline.RidgeBatchTable", roofline.RidgeBatchTable([]results.Result{matmul}).String(), []string{"model vs recording: +200%"}},
		{"smallgpt.ModelVersusRows", gptRows.String(), []string{"model vs recording: -50%"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, w := range tc.want {
				if !strings.Contains(tc.text, w) {
					t.Errorf("lacks %q:\n%s", w, tc.text)
				}
			}
			if err := gpumodel.CheckLabeled(tc.text); err != nil {
				t.Errorf("%v\n%s", err, tc.text)
			}
		})
	}
	if lane.Source != charts.Recorded {
		t.Errorf("with a recording at this size the race's GPU lane is %v, want the recording", lane.Source)
	}
	for _, s := range stepcharts.TimeSeries(sweep, experiments.Batch) {
		if s.Source == charts.Model && !s.Banded() {
			t.Errorf("model series %q beside the recording is a line, not a band", s.Name)
		}
	}
}
