package experiments

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"NVIDIA H200 (139 GiB)", "nvidia-h200"},
		{"NVIDIA H100 80GB HBM3", "nvidia-h100-80gb-hbm3"},
		{"AMD EPYC 9R14 (2 cores)", "amd-epyc-9r14"},
		{"Intel(R) Xeon(R) Processor (2 cores)", "intel-xeon-processor"},
		{"Intel(R) Core(TM) i7-1185G7 @ 3.00GHz (8 cores)", "intel-core-i7-1185g7-3-00ghz"},
	} {
		if got := Slug(tc.in); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScale(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want Scale
	}{{"gpu", GPU}, {"GPU", GPU}, {"laptop", Laptop}} {
		t.Setenv(ScaleEnv, tc.env)
		if got := CurrentScale(); got != tc.want {
			t.Errorf("WHYGPU_SCALE=%s: got %s, want %s", tc.env, got, tc.want)
		}
	}
	if Pick(Laptop, 1, 2) != 1 || Pick(GPU, 1, 2) != 2 {
		t.Error("Pick picks the wrong size")
	}
}

func TestRecordAndLoadReference(t *testing.T) {
	root := t.TempDir()
	t.Setenv("WHYGPU_ROOT", root)
	if rs, err := Recorded("01-race", "sweep"); err != nil || len(rs) != 0 {
		t.Fatalf("Recorded with nothing recorded = %v, %v; want empty, nil", rs, err)
	}
	e := Experiment{Lesson: "01-race", Name: "sweep", Run: func(*devices.Device, Scale) ([]results.Result, error) { return nil, nil }}
	res := []results.Result{{Workload: "matmul", Provenance: results.Provenance{Device: "xla:cuda", Model: "NVIDIA H200 (139 GiB)", Date: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}}}
	path, err := SaveReference(e, res)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "lessons", "reference", "nvidia-h200", "01-race", "sweep.json"); path != want {
		t.Errorf("path = %s, want %s", path, want)
	}
	got, err := Recorded("01-race", "sweep")
	if err != nil || len(got) != 1 || !got[0].Provenance.Recorded {
		t.Fatalf("Recorded = %+v, %v; want one recorded result", got, err)
	}
	if d := RecordedDevices(); len(d) != 1 || d[0] != "nvidia-h200" {
		t.Errorf("RecordedDevices = %v", d)
	}
	// WithRecorded adds the recording next to live CPU results, but not over a live result of the
	// same device.
	cpu := []results.Result{{Provenance: results.Provenance{Device: "xla:cpu", Run: results.RunID()}}}
	if got, err := WithRecorded(cpu, "01-race", "sweep"); err != nil || len(got) != 2 || !got[1].Provenance.Recorded {
		t.Errorf("WithRecorded(cpu) = %+v, %v; want the live result then the recording", got, err)
	}
	cuda := []results.Result{{Provenance: results.Provenance{Device: "xla:cuda", Run: results.RunID()}}}
	if got, _ := WithRecorded(cuda, "01-race", "sweep"); len(got) != 1 || got[0].Provenance.Recorded {
		t.Errorf("WithRecorded(live cuda) = %+v; the live GPU result must win", got)
	}
	_ = os.RemoveAll(root)
}

func ExampleSlug() {
	fmt.Println(Slug("NVIDIA H200 (139 GiB)"))
	// Output: nvidia-h200
}

// TestLiveOnEachDevice runs a function on every XLA device here: every result comes back, and an
// error stops it with the results so far.
func TestLiveOnEachDevice(t *testing.T) {
	devicetest.Open(t, devices.CPU) // fails under make test without the plugin
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		err     error
		wantErr error
	}{{"ok", nil, nil}, {"error", boom, boom}} {
		var seen []string
		rs, err := LiveOnEachDevice(func(d *devices.Device) ([]results.Result, error) {
			seen = append(seen, d.Name)
			return []results.Result{{Workload: "w", Provenance: results.Provenance{Device: d.Name, Run: results.RunID()}}}, tc.err
		})
		if !errors.Is(err, tc.wantErr) || len(rs) == 0 || len(rs) != len(seen) && tc.err == nil || !slices.Contains(seen, devices.CPU) {
			t.Errorf("%s: %d results from %v, error %v", tc.name, len(rs), seen, err)
		}
		if tc.err != nil && len(seen) != 1 {
			t.Errorf("%s: kept going after an error on %v", tc.name, seen)
		}
	}
}

// A retaken timing says it was retaken: how many timings, and the CV of those discarded.
func TestKeepSteadiestSaysSo(t *testing.T) {
	timing := func(cv float64) results.Result {
		return results.Result{Label: "step", Stats: results.Stats{N: 5, CV: cv}}
	}
	tests := []struct {
		name    string
		first   float64
		again   []float64
		wantCV  float64
		timings float64 // 0: not retried, no metric
	}{
		{"steady", 0.1, nil, 0.1, 0},
		{"disturbed then steady", 0.9, []float64{0.2}, 0.2, 2},
		{"disturbed twice", 0.9, []float64{0.7, 0.8}, 0.7, 3},
	}
	for _, tc := range tests {
		i := 0
		got, err := keepSteadiest(timing(tc.first), func() (results.Result, error) {
			r := timing(tc.again[i])
			i++
			return r, nil
		})
		if err != nil || got.Stats.CV != tc.wantCV || got.Metrics[MetricTimings] != tc.timings {
			t.Errorf("%s: CV %v, timings %v, err %v", tc.name, got.Stats.CV, got.Metrics[MetricTimings], err)
		}
		if retried := strings.Contains(got.Label, "lowest-CV of"); retried != (tc.timings > 0) {
			t.Errorf("%s: label %q", tc.name, got.Label)
		}
		if tc.timings > 0 && got.Metrics[MetricDiscardedCV] < got.Stats.CV {
			t.Errorf("%s: discarded CV %v below the kept %v", tc.name, got.Metrics[MetricDiscardedCV], got.Stats.CV)
		}
	}
}

// A measuring cell that fails leaves its failure kept: the chart cell below refuses with it
// instead of charting what an earlier, successful run kept.
func TestFailedCellIsNotChartedFromAnOldKeep(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	t.Setenv("WHYGPU_ROOT", t.TempDir())
	if err := results.Keep("k", []results.Result{{Label: "old"}}); err != nil {
		t.Fatal(err)
	}
	_, err := OnEachDevice("x", "y", "k", func(*devices.Device) ([]results.Result, error) { return nil, errors.New("out of memory") })
	if err == nil {
		t.Fatal("no error")
	}
	if _, err := results.Recall("k"); !errors.Is(err, results.ErrNotThisRun) || !strings.Contains(err.Error(), "out of memory") {
		t.Errorf("recall after the failed cell: %v", err)
	}
}
