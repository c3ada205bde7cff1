package batching

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
)

func TestBatches(t *testing.T) {
	if b := Batches(experiments.Laptop); b[0] != 1 || b[len(b)-1] != 512 {
		t.Errorf("laptop batches %v", b)
	}
	if b := Batches(experiments.GPU); b[len(b)-1] != 8192 {
		t.Errorf("GPU batches %v", b)
	}
}

// fake is a step result as measured (or recorded) on a device.
func fake(device string, batch, hidden int, d time.Duration, recorded bool) results.Result {
	w := experiments.CourseMLP(batch, hidden)
	r := results.Result{
		Workload: w.Name(), Label: w.String(), Params: w.Params(), FLOPs: w.FLOPs(), Bytes: w.Bytes(), RelErr: -1,
		Stats:      results.Stats{N: 7, Median: d, Min: d, P90: d, Mean: d},
		Provenance: results.Provenance{Device: device, Model: "test " + device, Date: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), Recorded: recorded, Run: results.RunID()},
		Precision:  "float32", PeakFLOPS: 300e9,
	}
	if device == devices.CUDA {
		r.Precision, r.PeakFLOPS = "tf32", 494.5e12
	}
	return r
}

// cpuSweep is a CPU that costs 40 µs plus 0.5 ns per FLOP.
func cpuSweep(hidden int, batches []int) []results.Result {
	var rs []results.Result
	for _, b := range batches {
		f := experiments.CourseMLP(b, hidden).FLOPs()
		rs = append(rs, fake(devices.CPU, b, hidden, 40*time.Microsecond+time.Duration(f*0.5), false))
	}
	return rs
}

func TestChartsAndCrossovers(t *testing.T) {
	narrow, wide := cpuSweep(Narrow, Batches(experiments.Laptop)), cpuSweep(Wide, Batches(experiments.Laptop))
	for _, h := range []int{Narrow, Wide} {
		rs := narrow
		if h == Wide {
			rs = wide
		}
		if _, err := BatchChart(rs, h); err != nil {
			t.Errorf("BatchChart(%d): %v", h, err)
		}
	}
	line, _, _ := strings.Cut(Crossover(narrow, Narrow), "\n") // the crossover itself; the launch-cost control follows
	if !regexp.MustCompile(`^crossover: .*xla:cpu measured live vs H200 \(model\) datasheet model \(not a measurement; its assumptions are behind the badge\)`).MatchString(line) ||
		!strings.HasSuffix(line, "[hidden 64]") {
		t.Errorf("narrow crossover: %q", line)
	}
	wideLine := Crossover(wide, Wide)
	if !strings.HasPrefix(wideLine, "crossover: ") {
		t.Errorf("wide crossover: %q", wideLine)
	}
	if _, err := ThroughputChart(narrow, wide); err != nil {
		t.Errorf("ThroughputChart: %v", err)
	}
	var width []results.Result
	for _, h := range Widths(experiments.Laptop) {
		f := experiments.CourseMLP(WidthBatch, h).FLOPs()
		width = append(width, fake(devices.CPU, WidthBatch, h, 30*time.Microsecond+time.Duration(f*0.1), false))
	}
	if _, err := WidthChart(width); err != nil {
		t.Errorf("WidthChart: %v", err)
	}
	if _, err := FLOPSChart(width); err != nil {
		t.Errorf("FLOPSChart: %v", err)
	}
	if l := WidthCrossover(width); !strings.HasPrefix(l, "crossover: ") || !strings.Contains(l, "hidden width ≈ ") {
		t.Errorf("width crossover: %q", l)
	}
}

func TestOccupancy(t *testing.T) {
	rs := cpuSweep(Narrow, Batches(experiments.Laptop))
	tab := OccupancyTable(rs, Narrow)
	if len(tab.Rows) != len(rs) {
		t.Fatalf("%d rows for %d results", len(tab.Rows), len(rs))
	}
	// 132 SMs × one 128×128 tile each: a 64-wide layer gives 1 tile per 128 samples.
	// The CPU column is parallelism offered, not busy lanes: a small batch is too little work for the
	// call's fixed cost (the review of 03: its weights sit in cache, so not "lanes wait on memory"),
	// and the batch amortizes that cost.
	if h := tab.Header[3]; !strings.Contains(h, "could fill") || !strings.Contains(h, "not busy lanes") {
		t.Errorf("CPU lanes header: %q", h)
	}
	if n := tab.NotesText(); strings.Contains(n, "lanes have work") || strings.Contains(n, "wait on memory") || !strings.Contains(n, "fixed cost, which the batch amortizes") {
		t.Errorf("CPU lanes note:\n%s", n)
	}
	if !strings.Contains(tab.NotesText(), "132 SMs all get a tile of the hidden layer's product from batch 16769 on") {
		t.Errorf("notes:\n%s", tab.NotesText())
	}
	if r := tab.Rows[0]; r[2] != "1 → 1%" || !strings.Contains(r[6], "not a measurement") || !strings.Contains(r[5], "–") {
		t.Errorf("batch 1 row: %v", r)
	}
	// A recorded GPU replaces the model in the GPU column.
	rs = append(rs, fake(devices.CUDA, 1, Narrow, 99*time.Microsecond, true))
	if r := OccupancyTable(rs, Narrow).Rows[0]; r[5] != "99 µs" || !strings.Contains(r[6], "recorded on") {
		t.Errorf("batch 1 row with a recorded GPU: %v", r)
	}
	fn, fw := FloorEnds(Narrow), FloorEnds(Wide)
	if fn <= 0 || fw <= 0 || fw >= fn {
		t.Errorf("the model's floor should end at a smaller batch for a wider layer: hidden 64 → %d, hidden 512 → %d", fn, fw)
	}
}

func TestPeakShareTable(t *testing.T) {
	narrow := cpuSweep(Narrow, []int{1, 8, 512})
	tab := PeakShareTable(narrow, nil)
	// batch 1 and batch 512 of the CPU, and of the model.
	if len(tab.Rows) != 4 {
		t.Fatalf("rows:\n%s", tab)
	}
	if tab.Rows[2][0] != stepcharts.StepModelName || !strings.Contains(tab.Rows[2][1], "not a measurement") {
		t.Errorf("model row: %v", tab.Rows[2])
	}
}

// TestWatchOnGoBackend runs a short utilization run on the pure-Go backend (no plugin needed).
func TestWatchOnGoBackend(t *testing.T) {
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	w := watch(dev, 2, 16, 300*time.Millisecond)
	if w.Err != nil {
		t.Fatal(w.Err)
	}
	if w.Steps == 0 || len(w.Timeline.CPU) == 0 || w.SamplesPerSec() <= 0 || w.CoresBusy() <= 0 {
		t.Errorf("watch: %d steps, %d CPU samples, %g samples/s, %g cores busy", w.Steps, len(w.Timeline.CPU), w.SamplesPerSec(), w.CoresBusy())
	}
	if _, err := w.Chart(); err != nil {
		t.Errorf("Chart: %v", err)
	}
	if s := w.Summary(); !strings.Contains(s, "go, batch 2 × hidden 16:") || !strings.Contains(s, "cores busy") {
		t.Errorf("Summary: %q", s)
	}
}
