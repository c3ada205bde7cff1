package smallgpt

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/internal/notebook"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

func TestFLOPsTable(t *testing.T) {
	for _, s := range []experiments.Scale{experiments.Laptop, experiments.GPU} {
		c := Config(s)
		_, rows := FLOPsTable(c).Parts()
		if len(rows) != len(c.ForwardMatMuls())+3 {
			t.Errorf("%s: %d rows", s, len(rows))
		}
		if err := c.Validate(); err != nil {
			t.Error(err)
		}
	}
	_, rows := ShareTable(Config(experiments.Laptop), []int{64, 1024}).Parts()
	if rows[0][3] >= rows[1][3] && len(rows[0][3]) >= len(rows[1][3]) {
		t.Errorf("share does not grow: %v", rows)
	}
}

func openCPU(t *testing.T) *devices.Device {
	t.Helper()
	return devicetest.Open(t, devices.CPU)
}

// TestTrainOnCPU trains a small model a few steps and checks the run's numbers and sample.
func TestTrainOnCPU(t *testing.T) {
	dev := openCPU(t)
	c := Config(experiments.Laptop)
	c.Layers, c.Embed, c.Context, c.Batch = 1, 32, 32, 4
	run, err := TrainOn(dev, c, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Losses) != 5 || run.Result.FLOPS() <= 0 || run.TokensPerSec() <= 0 || len([]rune(run.Sample)) != 120 {
		t.Errorf("run: %d losses, %g FLOP/s, sample %q", len(run.Losses), run.Result.FLOPS(), run.Sample)
	}
	if _, err := LossChart(run); err != nil {
		t.Error(err)
	}
	rs, err := SweepOn(dev, c, []int{16, 64}, nil)
	if err != nil || len(rs) != 2 {
		t.Fatalf("sweep: %v", err)
	}
	if _, err := SweepChart(rs); err != nil {
		t.Error(err)
	}
}

func TestBadInputsAreErrors(t *testing.T) {
	openCPU(t)
	_, rows := BadInputs().Parts()
	if len(rows) != 3 {
		t.Fatalf("rows %v", rows)
	}
	for _, r := range rows {
		if strings.Contains(r[1], "no error") {
			t.Errorf("%s: %s", r[0], r[1])
		}
	}
	if !strings.Contains(rows[2][1], "out of memory") {
		t.Errorf("huge model: %s", rows[2][1])
	}
}

// The GPU model's row is a band, and its kernels are the GPU-scale step's, counted on xla:cpu.
func TestGPUModelRowIsABand(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	r := GPUModelRow()
	if !strings.Contains(r[4], "not a measurement") || !strings.Contains(r[3], "–") {
		t.Errorf("row %v", r)
	}
	// The row prints the label; the assumptions (the kernels' count among them) go to the badge's fold.
	note := gpumodel.GPTStepEstimate(Config(experiments.GPU)).Note()
	if !strings.Contains(note, hlo.CountedOn) || strings.Contains(note, "assumed: 40 per layer") {
		t.Errorf("the model's kernels are not counted on xla:cpu: %v", note)
	}
	t.Log(r)
}

func TestGPTPartsFLOPsSumToStep(t *testing.T) {
	for _, c := range []gpt.GPT{Config(experiments.Laptop), Config(experiments.GPU), {Vocab: 7, Context: 5, Batch: 3, Embed: 6, Layers: 3, Heads: 2, FFN: 10}} {
		sum := 0.0
		for _, p := range gpt.GPTParts {
			sum += gpt.GPTPart{GPT: c, Part: p}.FLOPs()
		}
		if math.Abs(sum-c.FLOPs()) > 1e-9*c.FLOPs() {
			t.Errorf("%s: the parts' FLOPs sum to %g, the step counts %g", c, sum, c.FLOPs())
		}
	}
}

// TestStepPartsOnCPU times a small GPT's op classes and whole step, and shows their shares.
func TestStepPartsOnCPU(t *testing.T) {
	dev := openCPU(t)
	c := Config(experiments.Laptop)
	c.Layers, c.Embed, c.Context, c.Batch = 1, 32, 32, 4
	rs, err := StepPartsOn(dev, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(gpt.GPTParts)+1 {
		t.Fatalf("%d results", len(rs))
	}
	if h, rows := SharesTable(rs).Parts(); len(rows) != len(gpt.GPTParts)+2 || len(rows[0]) != len(h) {
		t.Errorf("table %v %v", h, rows)
	}
	if _, err := SharesChart(rs); err != nil {
		t.Error(err)
	}
}

// The summary prints the loss a model that knows nothing starts at (ln of the vocabulary size), so
// the notebook's prose need not state it before the run.
func TestSummaryNamesTheStartingLoss(t *testing.T) {
	run := Run{Config: gpt.GPT{Vocab: 100, Context: 4, Batch: 1, Embed: 4, Layers: 1, Heads: 1}, Losses: []float64{4.7, 2.1}}
	if s := Summary(run); !strings.Contains(s, "ln 100 = 4.61") || !strings.Contains(s, "4.70 → 2.10") {
		t.Errorf("Summary = %q", s)
	}
}

// The words that state the GPU-scale step's regime in prose (the recap's "Which regime?" line and
// PredictGEMMShare's Why) follow the GPU model's per-kernel bounds: when the model changes so that
// they no longer hold, this fails (the cell under the table prints them from the model itself).
func TestRegimeProseFollowsTheModel(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	r, err := ReadStep(Config(experiments.GPU))
	if err != nil {
		t.Fatal(err)
	}
	t.Log(r.Markdown())
	if r.Bound != "memory-bound" {
		t.Errorf("the prose says the step is memory-bandwidth-bound; the model says %s", r.Bound)
	}
	if r.Rest[0] < 0.5 || r.Rest[1] < 0.5 || r.RestBound.Memory < 0.9 {
		t.Errorf("the prose says memory-bound kernels hold most of the step: %.2f–%.2f of it, %.2f memory-bound", r.Rest[0], r.Rest[1], r.RestBound.Memory)
	}
	if r.Intensity[1] < r.Ridge[0] || r.Intensity[0] > r.Ridge[1] {
		t.Errorf("the prose says the products only reach the ridge: %.0f–%.0f FLOP/B against %.0f–%.0f", r.Intensity[0], r.Intensity[1], r.Ridge[0], r.Ridge[1])
	}
	if r.Fixed[1] > 0.01 {
		t.Errorf("the prose says fixed costs are a sliver: %.1f%% of the step", 100*r.Fixed[1])
	}
	if !strings.Contains(r.Markdown(), "not a measurement") {
		t.Errorf("the reading is not labeled a model: %s", r.Markdown())
	}
	path := filepath.Join("..", "..", "notebooks", Lesson+".ipynb")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no notebook " + path)
	}
	nb, err := notebook.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range nb.Cells {
		if s := c.Text(); strings.HasPrefix(s, "**Which regime?**") && !strings.Contains(s, "**memory-bandwidth-bound**") {
			t.Errorf("the recap's regime line does not say what the model says (%s):\n%s", r.Bound, s)
		}
	}
}
