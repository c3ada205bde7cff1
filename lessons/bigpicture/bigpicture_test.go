package bigpicture

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
)

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Abs(b) }

// TestSourceExample checks the calculator against the source's numbers (which round 10.24 TF to
// 10.2, hence 412 s and 477 days there).
func TestSourceExample(t *testing.T) {
	r := SourceRun
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"steps", r.Steps(), 1e5},
		{"FLOPs per step", r.FLOPsPerStep(), 2.1e15},
		{"forward + backward", r.ForwardFLOPsPerStep() + r.BackwardFLOPsPerStep(), 2.1e15},
		{"state at 16 B/param", r.StateBytes(16), 5.6e9},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	rates := SourceRates()
	if len(rates) != 2 {
		t.Fatalf("SourceRates = %+v", rates)
	}
	cpu, gpu := rates[0], rates[1]
	if s := cpu.SecondsPerStep(r); !near(s, 412, 0.01) {
		t.Errorf("CPU socket: %v s/step, want ≈ 412", s)
	}
	if d := cpu.Days(r); !near(d, 477, 0.01) {
		t.Errorf("CPU socket: %v days, want ≈ 477", d)
	}
	if s := gpu.SecondsPerStep(r); !near(s, 5.3, 0.01) {
		t.Errorf("H100: %v s/step, want ≈ 5.3", s)
	}
	if d := gpu.Days(r); !near(d, 6.1, 0.01) {
		t.Errorf("H100: %v days, want ≈ 6.1", d)
	}
	if x := gpu.FLOPS / cpu.FLOPS; !near(x, 78, 0.01) {
		t.Errorf("ratio %v, want ≈ 78", x)
	}
}

func TestScaling(t *testing.T) {
	if s := AllReduceSeconds(1e9, 1, 1e9); s != 0 {
		t.Errorf("one device syncs nothing, got %v", s)
	}
	if s := AllReduceSeconds(1e9, 2, 1e9); !near(s, 1, 1e-12) {
		t.Errorf("ring all-reduce over 2: %v s, want 1", s)
	}
}

func TestInferenceOnGoBackend(t *testing.T) {
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	if n := SmallMLP.NumParams(); n < 50_000 || n > 300_000 {
		t.Errorf("SmallMLP has %d parameters: not 'a small model'", n)
	}
	r, err := Inference(dev)
	if err != nil {
		t.Fatal(err)
	}
	if r.Seconds() <= 0 || r.RelErr < 0 || r.RelErr > 1e-4 {
		t.Errorf("result %+v", r)
	}
}

// The card lists the model against the recordings under it: with none yet (an empty checkout),
// the one line that says so and where recording is described.
func TestModelCardListsRecordings(t *testing.T) {
	t.Setenv("WHYGPU_ROOT", t.TempDir())
	card, origins := ModelCard()
	if len(origins) != 2 || origins[0].Kind != units.Recorded || origins[1].Kind != units.Modeled {
		t.Errorf("the card's badges: got %v, want the published figures (recorded) and the model", origins)
	}
	if !strings.Contains(card, "**Model vs recording**") || !strings.Contains(card, stepcharts.NoRecordingYet) {
		t.Errorf("the card's model-vs-recording part is missing:\n%s", card[max(0, len(card)-600):])
	}
}

// MFULine says what the measured share of the ceiling means, whichever side of 100% it falls.
func TestMFULine(t *testing.T) {
	r := results.Result{FLOPs: 1e9, Precision: "float32", CeilingFLOPS: 2e10, PeakFLOPS: 1e11}
	r.Provenance.Device = "xla:cpu"
	r.Stats.Median = 100 * time.Millisecond // 10 GFLOP/s: half the ceiling
	if s := MFULine(r); !strings.Contains(s, "step: 10.0 GFLOP/s achieved") || !strings.Contains(s, "50% of the measured matmul ceiling: below") {
		t.Errorf("below the ceiling: %q", s)
	}
	r.CeilingFLOPS = 5e9
	if s := MFULine(r); !strings.Contains(s, "200% of the measured matmul ceiling: above it") {
		t.Errorf("above the ceiling: %q", s)
	}
	r.CeilingFLOPS = 0
	if s := MFULine(r); !strings.Contains(s, "no measured matmul ceiling") {
		t.Errorf("no ceiling: %q", s)
	}
}
