package bench

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestReportRoundTrip(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	if _, err := Latest(); err == nil || !strings.Contains(err.Error(), "make bench") {
		t.Fatalf("Latest without a report: %v, want an error naming `make bench`", err)
	}
	rep := Report{Date: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC), Host: "h", CPU: "cpu", Cores: 2, JAX: "0.10.2",
		Points: []Point{{Workload: "matmul", Params: map[string]int{"n": 8}, Metric: PerCall, Impls: map[string]Impl{
			JAX: {Value: 44e-6}, "xla:cpu": {Value: 60e-6}, NumPy: {Err: "boom"}}}}}
	if err := Save("", rep); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(filepath.Dir(Path())) != results.CacheDir() {
		t.Errorf("Path %s is not under CacheDir %s", Path(), results.CacheDir())
	}
	got, err := Latest()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		workload string
		params   map[string]int
		impl     string
		ok       bool
		want     float64
	}{
		{"matmul", map[string]int{"n": 8}, JAX, true, 44e-6},
		{"matmul", map[string]int{"n": 8}, "xla:cpu", true, 60e-6},
		{"matmul", map[string]int{"n": 8}, NumPy, false, 0}, // an error is not a timing
		{"matmul", map[string]int{"n": 64}, JAX, false, 0},
		{"layernorm", map[string]int{"n": 8}, JAX, false, 0},
	} {
		v, ok := got.Find(tc.workload, tc.params, tc.impl)
		if ok != tc.ok || v.Value != tc.want {
			t.Errorf("Find(%s %v %s) = %v, %v; want %v, %v", tc.workload, tc.params, tc.impl, v.Value, ok, tc.want, tc.ok)
		}
	}
	if l := got.Label(); !strings.Contains(l, "2026-12-01") || !strings.Contains(l, "h (cpu, 2 cores") {
		t.Errorf("Label() = %q, want the date, host and CPU", l)
	}
}
