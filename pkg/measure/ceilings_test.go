package measure

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/workloads"
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

// TestMeasureCeilings measures xla:cpu's ceilings for real (a few seconds), then reads them back from
// the cache without measuring.
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
	if c.FLOPS["float32"] <= 0 || c.BytesPerSec <= 0 || len(c.Results) != 2 {
		t.Errorf("incomplete ceilings: %+v", c)
	}
	// How long measuring takes is a benchmark's business (make bench), not a test's: on a loaded
	// machine it takes longer, and that is not a bug. The test only checks that the second call is
	// answered from the cache.
	t0 := time.Now()
	again, err := MeasureCeilings(dev)
	if err != nil || again.Date != c.Date.Truncate(0) && !again.Date.Equal(c.Date) {
		t.Errorf("second call did not come from the cache: %v", err)
	}
	t.Logf("cached call: %v", time.Since(t0))
}
