package measure

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/internal/testmain"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
)

func TestRunOnEachCPUDevice(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	for _, name := range []string{devices.CPU, devices.Go} {
		dev := openDevice(t, name)
		r, err := Run(dev, membound.LayerNorm{Rows: 64, Cols: 128, Type: dtypes.Float32}, Options{Warmup: 1, Reps: 3}, true)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Correct() || r.Stats.N != 3 || r.Precision != "float32" || r.Provenance.Device != name {
			t.Errorf("%s: %+v", name, r)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back results.Result
		if err := json.Unmarshal(b, &back); err != nil || back.Stats != r.Stats || back.Label != r.Label {
			t.Errorf("%s: JSON round trip lost data: %v", name, err)
		}
	}
}

func TestRunReturnsErrors(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	if _, err := Run(dev, workloads.Square(-1, dtypes.Float32), Options{}, false); err == nil {
		t.Error("a negative size should be an error")
	}
	if _, err := Run(dev, workloads.Square(1<<21, dtypes.Float32), Options{}, false); err == nil {
		t.Error("a matmul larger than memory should be an error")
	}
}

// openDevice opens a device for a test (devicetest.Open: a missing XLA CPU plugin fails under make test).
func openDevice(t testing.TB, name string) *devices.Device { return devicetest.Open(t, name) }

func TestMain(m *testing.M) {
	runHelper() // a helper process of disturbance_test.go exits here
	// Keep tests from reading ceilings cached by a real session.
	dir, err := os.MkdirTemp("", "whygpu-measure-test")
	if err == nil {
		os.Setenv("WHYGPU_CACHE", dir)
		defer os.RemoveAll(dir)
	}
	code := m.Run()
	os.RemoveAll(dir)
	testmain.Exit(code) // a clean exit under -race after the plugin loaded

}

// TestRunCountsFreshMemory: an elementwise op writes a fresh output each run, and Stats.FreshBytes
// counts it (one page fault per page on Linux): within 25% of the output's size.
func TestRunCountsFreshMemory(t *testing.T) {
	if pageSize() == 0 {
		t.Fatal("page faults are not counted on this system (a Unix one counts them: getrusage)")
	}
	dev := openDevice(t, devices.CPU)
	w := membound.Elementwise{N: 16 << 20, Type: dtypes.Float32}
	r, err := Run(dev, w, Options{Warmup: 1, Reps: 3}, false)
	if err != nil {
		t.Fatal(err)
	}
	out := float64(w.N * 4)
	if f := r.Stats.FreshBytes; f < 0.75*out || f > 1.25*out {
		t.Errorf("%s: %.3g fresh bytes per run, want about its %.3g-byte output", w, f, out)
	}
}
