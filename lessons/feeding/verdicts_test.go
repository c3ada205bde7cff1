package feeding

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/model/regime"
)

// contains reports the wanted fragments got lacks and the unwanted ones it has.
func contains(t *testing.T, name, got string, want, dontWant []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s: %q lacks %q", name, got, w)
		}
	}
	for _, w := range dontWant {
		if strings.Contains(got, w) {
			t.Errorf("%s: %q has %q", name, got, w)
		}
	}
}

// TestReadOver: where throughput peaked against the cores, a disturbed drop named as such, and the
// latency's growth, all decided from the runs.
func TestReadOver(t *testing.T) {
	us := func(v float64) time.Duration { return time.Duration(v * float64(time.Microsecond)) }
	pt := func(w int, perSec, latUS float64, disturbed bool) overPoint {
		return overPoint{Workers: w, PerSec: perSec, Latency: us(latUS), Disturbed: disturbed}
	}
	for _, tc := range []struct {
		name     string
		pts      []overPoint
		want     []string
		dontWant []string
	}{
		{"the review's run: peak past the cores within noise, a disturbed dip",
			[]overPoint{pt(1, 3238, 309, false), pt(2, 7799, 256, false), pt(4, 6874, 582, false), pt(8, 1275, 6270, true), pt(16, 8267, 1935, false)},
			[]string{"peaked at 16 workers", "rose no further", "8267 jobs/s at 16 workers", "7799 jobs/s at 2 workers", "drop at 8 workers (1275 jobs/s) is a disturbed run",
				"309 µs to 1.94 ms", "16.0 were in flight", "Little's law"},
			[]string{"still rose", "competed", "drop at 4", "Other programs disturbed some runs"}},
		{"monotone but disturbed: no drop, a general note",
			[]overPoint{pt(1, 1202, 832, true), pt(2, 1271, 1570, true), pt(4, 2032, 1960, true), pt(16, 7347, 2180, true)},
			[]string{"peaked at 16 workers", "still rose past the cores", "Other programs disturbed some runs"}, []string{"drop"}},
		{"peak at the cores, an undisturbed drop beyond",
			[]overPoint{pt(1, 3000, 330, false), pt(2, 6000, 330, false), pt(4, 5800, 690, false), pt(16, 3000, 5300, false)},
			[]string{"peaked at 2 workers", "rose no further", "At 16 workers throughput fell to 3000 jobs/s", "oversubscription", "15.9 were in flight"},
			[]string{"disturbed", "still rose"}},
		{"small jobs: throughput still rises past the cores",
			[]overPoint{pt(1, 1000, 1000, false), pt(2, 1500, 1330, false), pt(4, 2500, 1600, false)},
			[]string{"peaked at 4 workers", "still rose past the cores", "left cores idle"},
			[]string{"rose no further", "drop"}},
		{"one worker only", []overPoint{pt(1, 1000, 1000, false)}, []string{"peaked at 1 workers"}, []string{"Little", "cores ("}},
		{"nothing", nil, []string{"run the cell above"}, nil},
	} {
		contains(t, tc.name, readOver(tc.pts, 2), tc.want, tc.dontWant)
	}
}

func TestInFlight(t *testing.T) {
	for _, tc := range []struct {
		perSec  float64
		latency time.Duration
		want    float64
	}{{1000, time.Millisecond, 1}, {8267, 1935 * time.Microsecond, 16}, {7347, 1300 * time.Microsecond, 9.55}, {0, time.Second, 0}} {
		if got := InFlight(tc.perSec, tc.latency); got < tc.want-0.01 || got > tc.want+0.01 {
			t.Errorf("InFlight(%v, %v) = %.3f, want %.2f", tc.perSec, tc.latency, got, tc.want)
		}
	}
}

// TestFusionReading: the two verdicts (the course's one rule, regime.OverheadBelow) decide whether
// the runs are called bandwidth-bound or the ratio alone is the lesson.
func TestFusionReading(t *testing.T) {
	// The chain's bytes at 1 GB/s take 100 ms; the measured times set the share they explain.
	verdict := func(explained float64) regime.Verdict {
		return regime.Budget{Bytes: 1e8, Measured: time.Duration(0.1 / explained * float64(time.Second)),
			CeilingFLOPS: 1e12, CeilingBytesPerSec: 1e9}.Classify()
	}
	low, high := 0.6*regime.OverheadBelow, (1+regime.OverheadBelow)/2
	lowPct, highPct := fmt.Sprintf("%.0f%%", 100*low), fmt.Sprintf("%.0f%%", 100*high)
	for _, tc := range []struct {
		name           string
		unfused, fused regime.Verdict
		disturbed      bool
		want, dontWant []string
	}{
		{"both below the ceiling, disturbed (the review's run)", verdict(low), verdict(low), true,
			[]string{"8.3× faster than 8 executables", "only " + lowPct, "the ratio, not the rate, is the lesson", "disturbed"}, []string{"memory-bandwidth-bound"}},
		{"both explained: bandwidth-bound", verdict(high), verdict(high), false,
			[]string{highPct + " and " + highPct, "both are memory-bandwidth-bound"}, []string{"ratio, not the rate", "disturbed"}},
		{"only the separate executables explained", verdict(high), verdict(low), false,
			[]string{highPct + " of the separate executables' time", "only " + lowPct + " of the graph's"}, []string{"both are"}},
		{"only the graph explained", verdict(low), verdict(high), false,
			[]string{"only " + lowPct + " of the separate executables' time but " + highPct + " of the graph's", "fixed costs as well as bytes"}, []string{"both are"}},
		{"no ceilings: no verdict", regime.Budget{Bytes: 1, Measured: time.Second}.Classify(), regime.Budget{Bytes: 1, Measured: time.Second}.Classify(), false,
			[]string{"8.3× faster", "no verdict"}, []string{"explain"}},
		{"different reasons, each said once", regime.Verdict{Regime: regime.Unknown, Why: "a"}, regime.Verdict{Regime: regime.Unknown, Why: "b"}, false,
			[]string{"no verdict (a; b)"}, nil},
		{"the same reason said once", regime.Verdict{Regime: regime.Unknown, Why: "a"}, regime.Verdict{Regime: regime.Unknown, Why: "a"}, false,
			[]string{"no verdict (a)"}, nil},
		{"one reason", regime.Verdict{Regime: regime.Unknown}, regime.Verdict{Regime: regime.Unknown, Why: "b"}, false,
			[]string{"no verdict (b)"}, nil},
	} {
		contains(t, tc.name, fusionReading("xla:cpu", 8, 8.3, tc.unfused, tc.fused, tc.disturbed), tc.want, tc.dontWant)
	}
}

func TestCompiled(t *testing.T) {
	if explainCell(regime.Verdict{}) != "—" || explainCell(regime.Verdict{Explained: 0.307}) != "31%" {
		t.Error("explainCell")
	}
	for _, tc := range []struct {
		k, f int
		want string
	}{{8, 8, "8 kernels, 1 op each"}, {1, 8, "1 kernel, 8 ops fused"}, {1, 1, "1 kernel, 1 op"}, {3, 5, "3 kernels, 5 ops fused"}} {
		if got := compiled(tc.k, tc.f); got != tc.want {
			t.Errorf("compiled(%d, %d) = %q, want %q", tc.k, tc.f, got, tc.want)
		}
	}
}

// TestRatioCell: a doubled run's ratio is withheld over a disturbed base and flagged below 1.
func TestRatioCell(t *testing.T) {
	for _, tc := range []struct {
		t1, t2    float64
		disturbed bool
		want      string
	}{
		{1e-3, 2e-3, false, "2.00×"},
		{216e-6, 27.8e-6, false, "0.13× (< 1: noise, rerun)"},
		{216e-6, 27.8e-6, true, "— (base run disturbed)"},
		{1e-3, 1.02e-3, true, "— (base run disturbed)"},
		{0, 1e-3, false, "—"},
	} {
		if got := ratioCell(tc.t1, tc.t2, tc.disturbed); got != tc.want {
			t.Errorf("ratioCell(%g, %g, %v) = %q, want %q", tc.t1, tc.t2, tc.disturbed, got, tc.want)
		}
	}
}
