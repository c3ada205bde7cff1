package race

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
)

func TestStepSweepCoversTheSliders(t *testing.T) {
	// At GPU scale the step sweep covers every stop of the race's sliders, so a GPU recording gives
	// the race a recorded lane wherever the learner puts them.
	grid := map[experiments.Size]bool{}
	for _, s := range SweepSizes(experiments.GPU) {
		grid[s] = true
	}
	for _, b := range Batches {
		for _, h := range Hiddens {
			if !grid[experiments.Size{Batch: b, Hidden: h}] {
				t.Errorf("the GPU-scale step sweep misses the race's stop batch %d × hidden %d", b, h)
			}
		}
	}
	if !contains(Batches, StartBatch) || !contains(Hiddens, StartHidden) {
		t.Errorf("the race starts off its sliders' stops: batch %d, hidden %d", StartBatch, StartHidden)
	}
}

func contains(vs []int, v int) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

func TestModel(t *testing.T) {
	devicetest.NeedCPUPlugin(t) // the model's kernels are counted on xla:cpu
	w := experiments.CourseMLP(1, 64)
	e := gpumodel.StepEstimate(w)
	if e.Bound != "launch-bound" || e.Work.Kernels <= 0 {
		t.Errorf("batch 1 × hidden 64 should be launch-bound with its kernels, got %s, %d", e.Bound, e.Work.Kernels)
	}
	// The kernels the race's model uses are XLA's count on xla:cpu, not the assumed 6 per layer.
	if want := hlo.CountedOn; !strings.HasPrefix(e.Work.KernelsFrom, want) {
		t.Errorf("kernels from %q, want %q", e.Work.KernelsFrom, want)
	}
	if !strings.Contains(e.Note(), e.Work.KernelsFrom) {
		t.Errorf("the lane's note does not say where its kernel count comes from: %q", e.Note())
	}
	if !(e.Low > 0 && e.Low < e.High) {
		t.Errorf("the model must be a band, got %v – %v", e.Low, e.High)
	}
	big := GPU.Estimate(gpumodel.MLPStep(experiments.CourseMLP(1<<16, 8192), 0, "a test of the model's shape"))
	if big.Bound != "compute-bound" {
		t.Errorf("a huge step should be compute-bound, got %s", big.Bound)
	}
	// Not a constant over the slider grid: the band's far end moves with the work.
	if top := gpumodel.StepEstimate(experiments.CourseMLP(Batches[len(Batches)-1], Hiddens[len(Hiddens)-1])); top.High < e.High*3/2 {
		t.Errorf("the GPU lane barely moves over the grid: %s at the start, %s at the largest size", e.Band(), top.Band())
	}
	lane := stepcharts.BandLane(gpumodel.StepEstimate(w))
	if lane.Source != charts.Model || !lane.Banded() || !strings.Contains(lane.Describe(), "not a measurement") || !strings.Contains(lane.Describe(), "band") {
		t.Errorf("the model lane must be a labeled band, not a measurement: %q", lane.Describe())
	}
	mt := ModelTable(1, 64).String()
	for _, s := range []string{"CUDA graph", "datasheet", "launch-bound", "formula", "tiles", "not a measurement"} {
		if !strings.Contains(mt, s) {
			t.Errorf("ModelTable does not mention %q:\n%s", s, mt)
		}
	}
}

func TestMachines(t *testing.T) {
	tab := Machines()
	if len(tab.Rows) < 3 || !strings.HasPrefix(tab.Rows[0][0], "this CPU") {
		t.Fatalf("Machines:\n%s", tab)
	}
	if !strings.Contains(tab.String(), "H100") || !strings.Contains(tab.String(), "H200") {
		t.Errorf("Machines lacks the datasheet GPUs:\n%s", tab)
	}
	for _, r := range tab.Rows {
		if len(r) != len(tab.Header) {
			t.Errorf("row %v has %d cells, header %d", r, len(r), len(tab.Header))
		}
	}
}

func TestFLOPTable(t *testing.T) {
	tab := FLOPTable()
	if len(tab.Rows) != len(Layers) {
		t.Fatalf("%d rows, want %d", len(tab.Rows), len(Layers))
	}
	if r := tab.Rows[0]; r[4] != "5.24e+05" || r[5] != "1.57e+06" || r[9] != "formula" || !strings.HasSuffix(r[7], "ns") {
		t.Errorf("row (1, 512, 512) = %v", r)
	}
	for _, l := range Layers {
		if f, tr := l.Forward().FLOPs(), l.Training().FLOPs(); f != 2*float64(l.B*l.D*l.H) || tr != 3*f {
			t.Errorf("%v: forward %g, training %g", l, f, tr)
		}
	}
}

func TestSplit(t *testing.T) {
	for _, side := range SplitSides {
		w := Split(SplitBudget, side)
		if w.FLOPs() != SplitBudget {
			t.Errorf("split %d×%d: %d calls = %g FLOPs, want the budget %d", side, side, w.Calls, w.FLOPs(), SplitBudget)
		}
		if math.Abs(w.Intensity()-float64(side)/6) > 1e-9 {
			t.Errorf("split %d: intensity %g, want n/6", side, w.Intensity())
		}
	}
	if c := Split(SplitBudget, 8).Calls; c != 32768 {
		t.Errorf("8×8 calls = %d, want 32768", c)
	}
	if _, err := (SplitMatMul{Side: 0, Calls: 1}).Prepare(nil); err == nil {
		t.Error("a zero-sized split prepared without error")
	}
}

// TestSmallVsLargeOnGoBackend runs the split small on GoMLX's pure-Go backend (no plugin needed).
func TestSmallVsLargeOnGoBackend(t *testing.T) {
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := SmallVsLargeOn(dev, 1<<16, []int{8, 16, 32}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 {
		t.Fatalf("%d results", len(rs))
	}
	for _, r := range rs {
		if r.FLOPs != 1<<16 || !r.Correct() || r.Seconds() <= 0 {
			t.Errorf("result %s: FLOPs %g, rel. error %g, time %v", r.Label, r.FLOPs, r.RelErr, r.Stats.Median)
		}
	}
	if tab := SplitTable(rs); len(tab.Rows) != 3 || !strings.Contains(tab.NotesText(), "model as a band") {
		t.Errorf("SplitTable:\n%s", tab)
	}
	if _, err := SplitChart(rs); err != nil {
		t.Errorf("SplitChart: %v", err)
	}
}

// fake is a step result as measured (or recorded) on a device.
func fake(device string, batch, hidden int, d time.Duration, recorded bool) results.Result {
	w := experiments.CourseMLP(batch, hidden)
	return results.Result{
		Workload: w.Name(), Label: w.String(), Params: w.Params(), FLOPs: w.FLOPs(), Bytes: w.Bytes(), RelErr: -1,
		Stats:      results.Stats{N: 7, Median: d, Min: d, P90: d, Mean: d},
		Provenance: results.Provenance{Device: device, Model: "test " + device, Date: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Recorded: recorded, Run: results.RunID()},
	}
}

func TestCrossoverLine(t *testing.T) {
	var rs []results.Result
	for _, b := range Batches {
		rs = append(rs, fake(devices.CPU, b, 64, time.Duration(5+5*b)*time.Microsecond, false))
	}
	line := stepcharts.CrossoverLine(stepcharts.TimeSeries(rs, experiments.Batch), "batch")
	// CPU = 5 µs + 5 µs·b passes the model band's two ends (≈ 40 µs and ≈ 100 µs: GPU model v2) at batch ≈ 7 and ≈ 19.
	m := regexp.MustCompile(`^crossover: somewhere between batch ≈ ([0-9.]+) and ≈ ([0-9.]+), .*xla:cpu measured live vs H200 \(model\) datasheet model \(not a measurement; its assumptions are behind the badge\)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("crossover line: %q", line)
	}
	if a, _ := strconv.ParseFloat(m[1], 64); a < 4 || a > 10 {
		t.Errorf("crossing with the optimistic end at batch %s, want ≈ 7", m[1])
	}
	if b, _ := strconv.ParseFloat(m[2], 64); b < 10 || b > 25 {
		t.Errorf("crossing with the pessimistic end at batch %s, want ≈ 17", m[2])
	}
	// The control: the same crossover with the model's launch cost at its low and its high end; the
	// low end (one CUDA graph) moves the crossover to smaller batches than the high one (a stream).
	ends := stepcharts.LaunchEndCrossovers(rs, "batch", experiments.Batch)
	if len(ends) != 2 || !strings.Contains(ends[0], "CUDA graph") || !strings.Contains(ends[1], "on a stream") {
		t.Fatalf("launch-cost crossovers: %q", ends)
	}
	lowAt := func(l string) float64 {
		m := regexp.MustCompile(`batch ≈ ([0-9.]+) and ≈ ([0-9.]+)`).FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("no crossover range in %q", l)
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		return v
	}
	if g, st := lowAt(ends[0]), lowAt(ends[1]); !(g < st) {
		t.Errorf("the crossover's far end with one CUDA graph (batch %g) is not below the one on a stream (%g)", g, st)
	}
	// A recorded GPU is what the crossover is found against; the model's band stays beside it.
	for _, b := range Batches {
		rs = append(rs, fake(devices.CUDA, b, 64, 5*time.Microsecond, true))
	}
	line = stepcharts.CrossoverLine(stepcharts.TimeSeries(rs, experiments.Batch), "batch")
	if !strings.HasPrefix(line, "crossover: none between batch 1 and 512") || !strings.Contains(line, "recorded on test xla:cuda, 2026-11-30") ||
		!strings.HasSuffix(line, "xla:cuda is faster throughout") {
		t.Errorf("crossover line with a recorded GPU faster everywhere: %q", line)
	}
	if ends := stepcharts.LaunchEndCrossovers(rs, "batch", experiments.Batch); ends != nil {
		t.Errorf("with a recorded GPU its curve decides the crossover, not the model's launch cost: %q", ends)
	}
	if s := stepcharts.TimeSeries(rs, experiments.Batch); len(s) != 3 || s[2].Source != charts.Model || !s[2].Banded() {
		t.Errorf("with a recorded GPU the model's band stays beside it: %d series", len(s))
	}
	// A GPU measured live replaces the model.
	live := append([]results.Result(nil), rs...)
	for _, b := range Batches {
		live = append(live, fake(devices.CUDA, b, 64, 5*time.Microsecond, false))
	}
	for _, s := range stepcharts.TimeSeries(live, experiments.Batch) {
		if s.Source == charts.Model {
			t.Errorf("with a GPU measured live there is no model series, got %q", s.Name)
		}
	}
}

// TestRecordedGPULane checks that the race takes the GPU lane from a recording at the same size,
// and falls back to the model elsewhere.
func TestRecordedGPULane(t *testing.T) {
	root := t.TempDir()
	t.Setenv("WHYGPU_ROOT", root)
	rec := fake(devices.CUDA, 32, 64, 123*time.Microsecond, false)
	rec.Provenance.Model = "NVIDIA H200 (139 GiB)"
	if err := results.Save(experiments.ReferencePath("nvidia-h200", Lesson, StepSweepName), []results.Result{rec}); err != nil {
		t.Fatal(err)
	}
	lane := GPULane(32, 64)
	if lane.Source != charts.Recorded || lane.Time != 123*time.Microsecond || !strings.Contains(lane.Describe(), "NVIDIA H200") {
		t.Errorf("recorded lane: %+v (%s)", lane, lane.Describe())
	}
	if lane := GPULane(64, 64); lane.Source != charts.Model {
		t.Errorf("no recording at batch 64: the lane should be the model, got %+v", lane)
	}
	if !GPUHere() && !strings.Contains(Describe(32, 64), "recorded on NVIDIA H200") {
		t.Errorf("Describe: %q", Describe(32, 64))
	}
	got, err := experiments.WithRecordedWhere([]results.Result{fake(devices.CPU, 32, 64, time.Millisecond, false)}, Lesson, StepSweepName, experiments.HiddenIs(64))
	if err != nil || len(got) != 2 || !got[1].Provenance.Recorded {
		t.Errorf("WithRecorded: %v, %d results", err, len(got))
	}
	if got, _ := experiments.WithRecordedWhere(nil, Lesson, StepSweepName, experiments.HiddenIs(128)); len(got) != 0 {
		t.Errorf("WithRecorded kept a result of another width: %v", got)
	}
}

func TestSweepOnGoBackend(t *testing.T) {
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	rs, err := experiments.Sweep(dev, experiments.Grid([]int{1, 4}, []int{16}), measure.Options{Warmup: 1, Reps: 3}, func(done, total int, _ string, _ ...any) {
		calls++
		if total != 2 || done < 0 || done >= total {
			t.Errorf("progress %d/%d", done, total)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || calls != 2 {
		t.Fatalf("%d results, %d progress calls", len(rs), calls)
	}
	for _, r := range rs {
		if !r.Correct() || r.Params["hidden"] != 16 || r.Seconds() <= 0 {
			t.Errorf("%s: rel. error %g (tolerance %g), params %v", r.Label, r.RelErr, r.Tolerance, r.Params)
		}
	}
}

// TestRace runs the race on this machine when the XLA CPU plugin is installed.
func TestRace(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	lanes, err := Run(1, 16)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]charts.Lane{}
	for _, l := range lanes {
		if l.Err != nil {
			t.Errorf("lane %s: %v", l.Device, l.Err)
		}
		seen[l.Device] = l
	}
	if l, ok := seen[devices.CPU]; !ok || l.Source != charts.Live || l.Time <= 0 {
		t.Errorf("no live xla:cpu lane: %+v", lanes)
	}
	if _, ok := seen[devices.Go]; !ok {
		t.Errorf("the pure-Go backend should race a step this small: %+v", lanes)
	}
	gpu := false
	for _, l := range lanes {
		gpu = gpu || strings.HasPrefix(l.Device, devices.CUDA) || l.Device == stepcharts.StepModelName
	}
	if !gpu {
		t.Errorf("no GPU lane (live, recorded or model): %+v", lanes)
	}
	if goEstimate(experiments.CourseMLP(512, 2048)) <= GoBudget {
		t.Errorf("the pure-Go backend would be raced at batch 512 × hidden 2048 (estimate %v)", goEstimate(experiments.CourseMLP(512, 2048)))
	}
}

// A GPU here that failed to open is never called live: Describe and the GPU lane say why it is not.
func TestBrokenGPUIsSaid(t *testing.T) {
	t.Setenv("WHYGPU_ROOT", t.TempDir())
	undo := devices.SimulateGPUFailure(errors.New("CUDA_ERROR_NO_DEVICE"))
	defer undo()
	if GPUHere() {
		t.Errorf("GPUHere with a GPU that failed to open")
	}
	d := Describe(32, 64)
	if !strings.HasPrefix(d, "GPU found but it failed to open: CUDA_ERROR_NO_DEVICE — showing ") || strings.Contains(d, "measured live") {
		t.Errorf("Describe: %q", d)
	}
	if lane := GPULane(32, 64); !strings.Contains(lane.Note, "failed to open: CUDA_ERROR_NO_DEVICE") {
		t.Errorf("GPU lane note: %q", lane.Note)
	}
}
