package datamovement

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

func TestSizesAndModels(t *testing.T) {
	for _, c := range []struct {
		s        experiments.Scale
		min, max int
	}{{experiments.Laptop, 4 << 10, 64 << 20}, {experiments.GPU, 4 << 10, 1 << 30}} {
		sz := TransferSizes(c.s)
		if sz[0] != c.min || sz[len(sz)-1] != c.max {
			t.Errorf("%s: sizes %v", c.s, sz)
		}
		for _, w := range []workloads.MLP{ResidentModel(c.s), SyncModel(c.s)} {
			if err := w.Validate(); err != nil {
				t.Error(err)
			}
		}
	}
}

// The source's worked example: 1, 16, 256 MB at ~10 GB/s is 0.1, 1.6, 25.6 ms.
func TestSourceTransferTable(t *testing.T) {
	_, rows := SourceTransferTable().Parts()
	for i, want := range []string{"100 µs", "1.6 ms", "25.6 ms"} {
		if rows[i][1] != want {
			t.Errorf("row %d: %q, want %q", i, rows[i][1], want)
		}
	}
	_, rows = GPUModelRows(ResidentModel(experiments.Laptop)).Parts()
	if len(rows) != 9 || !strings.Contains(rows[0][2], "not a measurement") || !strings.Contains(rows[1][0], "Gen5") || !strings.Contains(rows[8][2], "CUDA graph") ||
		!strings.Contains(rows[5][0], "pinned") || !strings.Contains(rows[6][0], "pageable") || !strings.Contains(rows[7][0], "What changed") {
		t.Errorf("GPU model rows %v", rows)
	}
}

// TestOnGoBackend runs every experiment tiny on the pure-Go backend.
func TestOnGoBackend(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := TransferSweep(dev, []int{4 << 10, 64 << 10})
	if err != nil || len(rs) != 4 {
		t.Fatalf("transfer: %v %d", err, len(rs))
	}
	if _, err := TransferChart(rs); err != nil {
		t.Error(err)
	}
	if _, rows := TransferTable(rs).Parts(); len(rows) != 2 {
		t.Errorf("transfer table %v", rows)
	}
	tiny := workloads.MLP{Batch: 4, In: 8, Hidden: 16, Out: 2, Depth: 1, Type: ResidentModel(experiments.Laptop).Type}
	rs, err = Resident(dev, tiny)
	if err != nil || len(rs) != 4 {
		t.Fatalf("resident: %v %d", err, len(rs))
	}
	if rs[0].Bytes != 0 || rs[2].Bytes <= rs[1].Bytes || rs[3].Bytes <= rs[2].Bytes {
		t.Errorf("bus bytes %v %v %v %v", rs[0].Bytes, rs[1].Bytes, rs[2].Bytes, rs[3].Bytes)
	}
	if _, rows := ResidentTable(rs).Parts(); len(rows) != 4 || rows[0][5] != "—" {
		t.Errorf("resident table %v", rows)
	}
	rs, err = SyncVariants(dev, tiny, 5, 0)
	if err != nil || len(rs) != len(ReadEvery) {
		t.Fatalf("sync: %v %d", err, len(rs))
	}
	if rs[0].Metrics[MetricReads] != 5 || rs[2].Metrics[MetricReads] != 1 {
		t.Errorf("reads %v %v", rs[0].Metrics, rs[2].Metrics)
	}
	if _, rows := SyncTable(rs).Parts(); len(rows) != 3 {
		t.Errorf("sync table %v", rows)
	}
	u, err := Unsynced(dev, 32)
	if err != nil {
		t.Fatal(err)
	}
	if u.Launch.Stats.Median >= u.Synced.Stats.Median {
		t.Errorf("launch %v ≥ completion %v", u.Launch.Stats.Median, u.Synced.Stats.Median)
	}
	_, rows := UnsyncedTable([]results.Result{u.Launch, u.Synced}).Parts()
	if !strings.Contains(rows[0][1], "wrong") || !strings.Contains(rows[1][1], "right") {
		t.Errorf("unsynced table %v", rows)
	}
}

// TestSyncTableReadsOldRecordings checks that a sync result saved before Metrics existed (reads and
// µs among the Params) shows the same row as one saved now.
func TestSyncTableReadsOldRecordings(t *testing.T) {
	now := results.Result{Label: "loss read every step", Params: map[string]int{"read_every": 1},
		Metrics: map[string]float64{MetricReads: 30, MetricBusyUS: 1500, MetricIdleUS: 250}}
	old := results.Result{Label: "loss read every step", Params: map[string]int{"read_every": 1,
		"reads": 30, "busy_per_step_us": 1500, "idle_per_step_us": 250}}
	_, want := SyncTable([]results.Result{now}).Parts()
	_, got := SyncTable([]results.Result{old}).Parts()
	if !slices.Equal(got[0], want[0]) || want[0][2] != "30" {
		t.Errorf("old %q, now %q", got[0], want[0])
	}
}

// The launch is emulated on every device (go-xla has no execute-without-waiting): a GPU's result,
// live or recorded, is never called a real CUDA launch.
func TestUnsyncedIsEmulatedEverywhere(t *testing.T) {
	for _, dev := range []string{devices.CPU, devices.CUDA} {
		launch := results.Result{Label: "matmul — timer stopped at launch (wrong; " + measure.EmulatedLaunch + ")", FLOPs: 1e9,
			Stats: results.Stats{Median: time.Microsecond}, Provenance: results.Provenance{Device: dev, Model: "m", Run: results.RunID()}}
		synced := launch
		synced.Label = "matmul"
		_, rows := UnsyncedTable([]results.Result{launch, synced}).Parts()
		line := UnsyncedLine([]results.Result{launch, synced})
		if !strings.Contains(rows[0][1], "emulated") || !strings.Contains(line, "emulated") || strings.Contains(line, "real") {
			t.Errorf("%s: table %q, line %q", dev, rows[0][1], line)
		}
	}
}
