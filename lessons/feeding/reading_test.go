package feeding

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// TestReadWorkers: the measured share beside the model's, per live run.
func TestReadWorkers(t *testing.T) {
	r := results.Result{Params: map[string]int{ParamWorkers: 1}}
	r.SetMetric(ParamStepUS, 1000)
	r.SetMetric(ParamCostUS, 2000)
	r.SetMetric(ParamUtilPM, 450)
	r.Stats.Median = 4 * time.Millisecond
	if got := ReadWorkers([]results.Result{r}); !strings.Contains(got, "1 worker(s) 4 ms (model 2 ms)") || !strings.Contains(got, "2.0–2.0× the model's time") {
		t.Errorf("ReadWorkers = %q", got)
	}
	if f := FedShare(r); f != 0.25 {
		t.Errorf("FedShare = %v, want 1 ms ÷ 4 ms = 0.25", f)
	}
	if got := ReadWorkers(nil); !strings.Contains(got, "run the sweep cell") {
		t.Errorf("ReadWorkers(nil) = %q", got)
	}
}

// TestReadShares: shares and the whole step against the parts' sum.
func TestReadShares(t *testing.T) {
	part := func(name string, flops float64, d time.Duration) results.Result {
		r := results.Result{Workload: name, FLOPs: flops}
		r.Provenance.Device = "xla:cpu"
		r.Stats.Median = d
		return r
	}
	rs := []results.Result{part("mlp-part-matmuls", 90, 4*time.Millisecond), part("mlp-part-optimizer", 10, 6*time.Millisecond), part("mlp-step", 100, 5*time.Millisecond)}
	got := ReadShares(rs)
	if !strings.Contains(got, "matmuls do 90% of the FLOPs in 40% of the parts' time") || !strings.Contains(got, "took 50% of the parts' sum") {
		t.Errorf("ReadShares = %q", got)
	}
}

// TestReadSweep: the sentence follows the times per step, never the contended running share.
func TestReadSweep(t *testing.T) {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	pt := func(w int, perStep float64, running float64) sweepPoint {
		return sweepPoint{Workers: w, PerStep: ms(perStep), StepAlone: ms(0.72), Running: running}
	}
	for _, tc := range []struct {
		name     string
		pts      []sweepPoint
		want     []string
		dontWant []string
	}{
		{"the review's run: slower steps, rising running share", []sweepPoint{pt(1, 5.77, 0.68), pt(2, 6.02, 0.70), pt(4, 8.53, 0.82)},
			[]string{"made each step slower", "5.77 ms with 1", "8.53 ms with 4", "oversubscription", "68% → 82%", "no sign of being fed"}, []string{"fed the device:"}},
		{"spare cores: more workers fed it", []sweepPoint{pt(1, 1.45, 0.5), pt(2, 0.75, 0.95), pt(4, 0.74, 0.96)},
			[]string{"More workers fed the device", "1.45 ms per step with 1", "740 µs with 4"}, []string{"slower", "no sign"}},
		{"fed, then oversubscribed", []sweepPoint{pt(1, 1.45, 0.5), pt(2, 0.75, 0.95), pt(8, 1.2, 0.97)},
			[]string{"More workers fed the device", "Beyond 2, steps got slower again", "oversubscription"}, nil},
		{"flat within noise", []sweepPoint{pt(1, 5.0, 0.6), pt(2, 5.2, 0.6), pt(4, 5.3, 0.6)},
			[]string{"barely moved", "no spare cores"}, []string{"slower (", "fed the device"}},
		{"one worker already keeps pace", []sweepPoint{pt(1, 0.75, 0.95), pt(2, 0.74, 0.95)},
			[]string{"Already 1 worker(s) kept pace"}, nil},
		{"order of the runs does not matter", []sweepPoint{pt(4, 8.53, 0.82), pt(1, 5.77, 0.68)},
			[]string{"5.77 ms with 1", "8.53 ms with 4"}, nil},
		{"a disturbed run is named", []sweepPoint{pt(1, 5.0, 0.6), {Workers: 2, PerStep: ms(5.1), StepAlone: ms(0.72), Disturbed: true}},
			[]string{"disturbed some runs"}, nil},
		{"nothing", nil, []string{"run the sweep cell"}, nil},
	} {
		got := readSweep(tc.pts, 2)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.name, got, w)
			}
		}
		for _, w := range tc.dontWant {
			if strings.Contains(got, w) {
				t.Errorf("%s: %q has %q", tc.name, got, w)
			}
		}
	}
}

// TestReadSharesRefusesAnImplausibleWhole: a whole step far slower than its parts, or a disturbed
// one, gets no ratio.
func TestReadSharesRefusesAnImplausibleWhole(t *testing.T) {
	part := func(name string, d time.Duration) results.Result {
		r := results.Result{Workload: name, FLOPs: 1}
		r.Provenance.Device = "xla:cpu"
		r.Stats.Median = d
		return r
	}
	slow := []results.Result{part("mlp-part-matmuls", time.Millisecond), part("mlp-part-optimizer", 400*time.Microsecond), part("mlp-step", 19*time.Millisecond)}
	if got := ReadShares(slow); strings.Contains(got, "% of the parts' sum") || !strings.Contains(got, "not compared") {
		t.Errorf("ReadShares of a 13.6× whole step = %q", got)
	}
	disturbed := []results.Result{part("mlp-part-matmuls", time.Millisecond), part("mlp-step", 800*time.Microsecond)}
	disturbed[1].Stats.Disturbance = results.Disturbance{Counted: true, OthersCores: 1.8}
	if got := ReadShares(disturbed); !strings.Contains(got, "disturbed") || strings.Contains(got, "% of the parts' sum") {
		t.Errorf("ReadShares with a disturbed whole step = %q", got)
	}
}

func TestModelGap(t *testing.T) {
	for _, tc := range []struct {
		ratios    []float64
		disturbed bool
		want      string
	}{
		{[]float64{3.0, 4.8, 8.9}, false, "Every run took 3.0–8.9× the model's time: the loaders and the step shared the cores, which"},
		{[]float64{3.0, 4.8, 8.9}, true, "shared the cores (and other programs, in the runs marked disturbed), which"},
		{[]float64{1.05, 1.1}, false, "within 20% of the model: the loaders found spare cores"},
		{[]float64{1.1, 2.5}, false, "Some runs kept near the model and some took up to 2.5×"},
		{nil, true, ""},
	} {
		if got := modelGap(tc.ratios, tc.disturbed); !strings.Contains(got, tc.want) || (tc.want == "" && got != "") {
			t.Errorf("modelGap(%v, %v) = %q, want %q", tc.ratios, tc.disturbed, got, tc.want)
		}
	}
}
