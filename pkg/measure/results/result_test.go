package results

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestResultDerivedNumbers(t *testing.T) {
	sec := func(s float64) Stats { return Stats{N: 1, Median: time.Duration(s * float64(time.Second))} }
	for _, tc := range []struct {
		name                                   string
		r                                      Result
		flops, bytesPerSec, intensity, peak    float64
		attainable, ofCeiling, ofPeakBandwidth float64
	}{
		{
			// Compute-bound: intensity 100 FLOP/B, ridge 1e12/1e10 = 100 → attainable = min(1e12, 100·1e10).
			name: "compute-bound", r: Result{FLOPs: 1e12, Bytes: 1e10, Stats: sec(2), PeakFLOPS: 1e12,
				CeilingFLOPS: 8e11, CeilingBytesPerSec: 1e10, PeakBytesPerSec: 2e10},
			flops: 5e11, bytesPerSec: 5e9, intensity: 100, peak: 50,
			attainable: 8e11, ofCeiling: 62.5, ofPeakBandwidth: 25,
		},
		{
			// Memory-bound: intensity 0.25, attainable = 0.25 · 1e10 = 2.5e9 FLOP/s.
			name: "memory-bound", r: Result{FLOPs: 1e9, Bytes: 4e9, Stats: sec(1), PeakFLOPS: 1e12,
				CeilingFLOPS: 8e11, CeilingBytesPerSec: 1e10},
			flops: 1e9, bytesPerSec: 4e9, intensity: 0.25, peak: 0.1,
			attainable: 2.5e9, ofCeiling: 40,
		},
		{
			// No FLOPs (a copy or transfer): % of the bandwidth ceiling.
			name: "copy", r: Result{Bytes: 6e9, Stats: sec(1), CeilingBytesPerSec: 1e10},
			bytesPerSec: 6e9, attainable: 1e10, ofCeiling: 60,
		},
		{
			name: "nothing known", r: Result{FLOPs: 1e9, Bytes: 1e9, Stats: sec(1)},
			flops: 1e9, bytesPerSec: 1e9, intensity: 1,
		},
		{name: "zero time", r: Result{FLOPs: 1e9, Bytes: 1e9}, intensity: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.r
			for _, c := range []struct {
				what      string
				got, want float64
			}{
				{"FLOPS", r.FLOPS(), tc.flops}, {"GFLOPS", r.GFLOPS(), tc.flops / 1e9},
				{"BytesPerSec", r.BytesPerSec(), tc.bytesPerSec}, {"GBPerSec", r.GBPerSec(), tc.bytesPerSec / 1e9},
				{"Intensity", r.Intensity(), tc.intensity}, {"PercentOfPeak", r.PercentOfPeak(), tc.peak},
				{"Attainable", r.Attainable(), tc.attainable}, {"PercentOfCeiling", r.PercentOfCeiling(), tc.ofCeiling},
				{"PercentOfPeakBandwidth", r.PercentOfPeakBandwidth(), tc.ofPeakBandwidth},
			} {
				if !near(c.got, c.want) {
					t.Errorf("%s = %g, want %g", c.what, c.got, c.want)
				}
			}
		})
	}
}

func TestCorrect(t *testing.T) {
	for _, tc := range []struct {
		relErr, tol float64
		want        bool
	}{{-1, 1e-5, false}, {0, 1e-5, true}, {1e-6, 1e-5, true}, {1e-4, 1e-5, false}} {
		if got := (Result{RelErr: tc.relErr, Tolerance: tc.tol}).Correct(); got != tc.want {
			t.Errorf("RelErr %g, Tolerance %g: Correct = %v, want %v", tc.relErr, tc.tol, got, tc.want)
		}
	}
}

func TestSaveLoadKeepRecall(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	rs := []Result{{Workload: "matmul", Label: "m", FLOPs: 2, Stats: Stats{N: 3, Median: time.Millisecond, CV: 0.01},
		Provenance: Provenance{Device: "xla:cpu", Model: "test CPU", Date: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Run: RunID()}}}
	path := filepath.Join(t.TempDir(), "sub", "r.json")
	if err := Save(path, rs); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Provenance.Recorded || got[0].Stats != rs[0].Stats || got[0].Label != "m" {
		t.Errorf("Load = %+v; want the same result marked Recorded", got[0])
	}
	if l := got[0].Provenance.Label(); l != "xla:cpu (test CPU), recorded 2026-01-02" {
		t.Errorf("Label = %q", l)
	}
	if err := Keep("x", rs); err != nil {
		t.Fatal(err)
	}
	back, err := Recall("x")
	if err != nil || back[0].Provenance.Recorded || back[0].Label != "m" {
		t.Errorf("Recall = %+v, %v; want the live result", back, err)
	}
	if _, err := Recall("never-kept"); err == nil {
		t.Error("Recall of a name never kept should say which cell to run")
	}
}

func TestMetric(t *testing.T) {
	var r Result
	if _, ok := r.Metric("x"); ok {
		t.Error("a zero result has no metrics")
	}
	r.SetMetric("peak_bytes", 1.5e9)
	r.Params = map[string]int{"batch": 8, "old_bytes": 7}
	for _, tc := range []struct {
		name string
		want float64
		ok   bool
	}{{"peak_bytes", 1.5e9, true}, {"old_bytes", 7, true}, {"missing", 0, false}} {
		if v, ok := r.Metric(tc.name); v != tc.want || ok != tc.ok {
			t.Errorf("Metric(%q) = %v, %v; want %v, %v", tc.name, v, ok, tc.want, tc.ok)
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || back.Metrics["peak_bytes"] != 1.5e9 {
		t.Errorf("round trip: %s → %+v, %v", b, back.Metrics, err)
	}
}

func TestProvenanceOrigin(t *testing.T) {
	for _, tc := range []struct {
		p    Provenance
		want string
	}{
		{Provenance{Device: "xla:cpu", Run: RunID()}, "measured live"},
		{Provenance{Device: "xla:cuda", Recorded: true, Date: time.Date(2026, 11, 30, 23, 59, 0, 0, time.UTC)}, "recorded 2026-11-30"},
		// Live only in the run that measured it; without any origin it says so.
		{Provenance{Device: "xla:cpu", Run: "kernel gonb_old", Date: time.Date(2026, 11, 28, 14, 3, 0, 0, time.Local)}, "measured in another run (2026-11-28 14:03), not live"},
		{Provenance{Device: "xla:cpu"}, "no origin"},
	} {
		if got := tc.p.Origin(); got != tc.want {
			t.Errorf("%+v: Origin() = %q, want %q", tc.p, got, tc.want)
		}
	}
	if p := ProvenanceOf(&devices.Device{Name: devices.Go}); !p.Live() || !p.HasOrigin() {
		t.Errorf("ProvenanceOf is not live in its own run: %+v", p)
	}
}
