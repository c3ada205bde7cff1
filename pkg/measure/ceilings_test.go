package measure

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
)

func writeCeilings(t *testing.T, dev *devices.Device, c MeasuredCeilings) {
	t.Helper()
	path := ceilingsPath(dev)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(c)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCachedCeilings(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	fresh := MeasuredCeilings{Key: ceilingKey(dev), FLOPS: map[string]float64{"float32": 2e11}, BytesPerSec: 1e10, Date: time.Now()}
	for _, tc := range []struct {
		name string
		c    *MeasuredCeilings
		ok   bool
	}{
		{"nothing cached", nil, false},
		{"fresh", &fresh, true},
		{"expired", &MeasuredCeilings{Key: fresh.Key, FLOPS: fresh.FLOPS, Date: time.Now().Add(-CeilingsTTL - time.Minute)}, false},
		{"another machine or plugin", &MeasuredCeilings{Key: "elsewhere", FLOPS: fresh.FLOPS, Date: time.Now()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("WHYGPU_CACHE", t.TempDir())
			if tc.c != nil {
				writeCeilings(t, dev, *tc.c)
			}
			c, ok := CachedCeilings(dev)
			if ok != tc.ok {
				t.Fatalf("CachedCeilings ok = %v, want %v", ok, tc.ok)
			}
			if ok {
				if c.Ridge("float32") != 20 {
					t.Errorf("Ridge = %g, want 20", c.Ridge("float32"))
				}
				// Run picks cached ceilings up.
				r, err := Run(dev, workloads.Square(64, dtypes.Float32), Options{Warmup: -1, Reps: 1}, false)
				if err != nil {
					t.Fatal(err)
				}
				if r.CeilingFLOPS != 2e11 || r.CeilingBytesPerSec != 1e10 {
					t.Errorf("Run did not use the cached ceilings: %g FLOP/s, %g B/s", r.CeilingFLOPS, r.CeilingBytesPerSec)
				}
			}
		})
	}
}

// TestMeasureCeilings measures xla:cpu's ceilings for real (a few seconds), checks that they are
// roofs — no large step measured next to them runs above them — then reads them back from the cache
// without measuring.
func TestMeasureCeilings(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for a few seconds")
	}
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	dev := openDevice(t, devices.CPU)
	c, err := MeasureCeilings(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s in %v", c, c.Elapsed)
	if c.FLOPS["float32"] <= 0 || c.BytesPerSec <= 0 || len(c.Results) != len(CeilingWorkloads(dev)) {
		t.Errorf("incomplete ceilings: %+v", c)
	}
	// A CPU's first touch of fresh memory: a minor fault per page, tens of nanoseconds to tens of
	// microseconds on any machine (~1 µs on a 2-core EPYC VM), carried into every result after it.
	if c.FirstTouch < 20*time.Nanosecond || c.FirstTouch > 100*time.Microsecond || c.PageSize <= 0 {
		t.Errorf("first touch %v a page of %d bytes: not a page fault's cost", c.FirstTouch, c.PageSize)
	}
	// The bug this guards against: a copy ceiling that paid for fresh memory on every run sat 4–6×
	// below lesson 02's own points. A roof must be at least what large steps reach next to it:
	// lesson 02's a·x+b (a fresh output) and in-place a·x+b passes over the same array, and its
	// 1024² matmul. The bound is generous (1.5×): the two are measured at different moments of a
	// shared machine's load.
	bw := BandwidthWorkload(dev)
	for _, w := range []workloads.Workload{
		membound.Elementwise{N: 32 << 20, Type: dtypes.Float32},
		membound.Passes{N: bw.N, Passes: 8, Op: "axpb", Type: dtypes.Float32},
		workloads.Square(1024, dtypes.Float32),
	} {
		r, err := Run(dev, w, Options{Warmup: 1, Reps: 3}, false)
		if err != nil {
			t.Fatal(err)
		}
		roof, unit := c.BytesPerSec, "B/s"
		if r.Workload == "matmul" {
			roof, unit = c.FLOPS["float32"], "FLOP/s"
		}
		t.Logf("%s: %.3g %s at its best, %.0f%% of the ceiling, fresh %.3g B a run %s", w, best(r), unit, 100*best(r)/roof, r.Stats.FreshBytes, results.WhyDisturbed(r))
		if r.FirstTouchPerByte != c.FirstTouchPerByte() {
			t.Errorf("%s carries first touch %g s/B, the ceilings %g", w, r.FirstTouchPerByte, c.FirstTouchPerByte())
		}
		if why := results.WhyDisturbed(append(c.Results, r)...); why != "" {
			// A roof measured while other programs ran (go test runs packages side by side) is too low
			// by their load, and MeasureCeilings measures it again later (TestDisturbedCeilingsAreMeasuredAgain).
			t.Logf("%s: not compared with the ceiling: %s", w, why)
			continue
		}
		if best(r) > 1.5*roof {
			t.Errorf("%s reached %.3g %s, %.1f× the measured ceiling %.3g: the ceiling does not measure the roof", w, best(r), unit, best(r)/roof, roof)
		}
	}
	// How long measuring takes is a benchmark's business (make bench), not a test's: on a loaded
	// machine it takes longer, and that is not a bug. The test only checks that the second call is
	// answered from the cache (just measured: within CeilingsRetry even if disturbed).
	t0 := time.Now()
	again, err := MeasureCeilings(dev)
	if err != nil || !again.Date.Equal(c.Date) {
		t.Errorf("second call did not come from the cache: %v", err)
	}
	t.Logf("cached call: %v", time.Since(t0))
}

// TestDisturbedCeilingsAreMeasuredAgain: ceilings measured under load are kept for CeilingsRetry,
// then measured again, each keeping the better of the cached and the fresh value; quiet ones stay.
func TestDisturbedCeilingsAreMeasuredAgain(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	small := []workloads.Workload{workloads.Square(64, dtypes.Float32), membound.Passes{N: 1 << 16, Passes: 4, Op: "copy", Type: dtypes.Float32}}
	defer func(f func(*devices.Device) []workloads.Workload) { ceilingWorkloadsOf = f }(ceilingWorkloadsOf)
	ceilingWorkloadsOf = func(*devices.Device) []workloads.Workload { return small }
	loaded := results.Disturbance{Counted: true, OthersCores: 1.5}
	// cached makes a cached measurement of the small workloads at absurd rates (so the fresh one
	// cannot beat them), taken age ago.
	cached := func(age time.Duration, d results.Disturbance) MeasuredCeilings {
		c := MeasuredCeilings{Key: ceilingKey(dev), FLOPS: map[string]float64{}, Date: time.Now().Add(-age), Measurements: 1}
		for _, w := range small {
			r := results.Result{Label: w.String(), Workload: w.Name(), FLOPs: workloads.FLOPsOf(w), Bytes: workloads.BytesOf(w), Precision: "float32"}
			r.Stats.Min, r.Stats.Median, r.Stats.Disturbance = time.Nanosecond, time.Nanosecond, d
			c.Results = append(c.Results, r)
		}
		c.FLOPS["float32"], c.BytesPerSec = best(c.Results[0]), best(c.Results[1])
		return c
	}
	for _, tc := range []struct {
		name     string
		c        MeasuredCeilings
		measured bool // measured again (and merged)
	}{
		{"quiet, an hour old", cached(time.Hour, results.Disturbance{Counted: true}), false},
		{"disturbed, just measured", cached(time.Minute, loaded), false},
		{"disturbed, older than CeilingsRetry", cached(CeilingsRetry+time.Minute, loaded), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("WHYGPU_CACHE", t.TempDir())
			writeCeilings(t, dev, tc.c)
			got, err := MeasureCeilings(dev)
			if err != nil {
				t.Fatal(err)
			}
			if again := !got.Date.Equal(tc.c.Date); again != tc.measured {
				t.Fatalf("measured again = %v, want %v", again, tc.measured)
			}
			if got.BytesPerSec != tc.c.BytesPerSec || got.FLOPS["float32"] != tc.c.FLOPS["float32"] {
				t.Errorf("the better (cached) values were not kept: %v", got)
			}
			if tc.measured && (got.Measurements != 2 || !strings.Contains(got.String(), "best of 2")) {
				t.Errorf("merged: %d measurements, %s", got.Measurements, got)
			}
		})
	}
}
