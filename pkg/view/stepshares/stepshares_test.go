package stepshares

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

func result(workload, device string, flops float64, d time.Duration) results.Result {
	r := results.Result{Workload: workload, FLOPs: flops}
	r.Stats.Median = d
	r.Provenance.Device = device
	r.Provenance.Run = results.RunID() // measured in this run: live
	return r
}

func TestOf(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name          string
		rs            []results.Result
		parts         int
		flops0, time0 float64
		step          string
	}{
		{"two parts and the step", []results.Result{result("p-a", "cpu", 90, 3*ms), result("p-b", "cpu", 10, ms), result("whole", "cpu", 100, 3*ms)}, 2, 0.9, 0.75, "whole"},
		{"a part with no FLOPs", []results.Result{result("p-a", "cpu", 0, ms), result("p-b", "cpu", 50, ms)}, 2, 0, 0.5, ""},
		{"only the first device", []results.Result{result("p-a", "cpu", 1, ms), result("p-a", "gpu", 1, ms)}, 1, 1, 1, ""},
		{"nothing", nil, 0, 0, 0, ""},
	} {
		shares, step, _ := Of(tc.rs, "p-")
		if len(shares) != tc.parts || step.Workload != tc.step {
			t.Errorf("%s: %d shares, step %q", tc.name, len(shares), step.Workload)
			continue
		}
		if tc.parts > 0 && (shares[0].FLOPs != tc.flops0 || shares[0].Time != tc.time0) {
			t.Errorf("%s: first share %+v", tc.name, shares[0])
		}
	}
}

func TestChartAndTable(t *testing.T) {
	rs := []results.Result{result("p-a", "cpu", 90, 3*time.Millisecond), result("p-b", "cpu", 10, time.Millisecond), result("whole", "cpu", 100, 3*time.Millisecond)}
	if _, err := Chart(rs, "p-"); err != nil {
		t.Error(err)
	}
	stale := append([]results.Result(nil), rs...)
	stale[0].Provenance.Run = "another run"
	if _, err := Chart(stale, "p-"); !errors.Is(err, charts.ErrNoOrigin) {
		t.Errorf("another run's shares: %v, want ErrNoOrigin", err)
	}
	if _, err := Chart(nil, "p-"); !errors.Is(err, charts.ErrNoData) {
		t.Errorf("no results: %v", err)
	}
	if h, rows := Table(rs, "p-").Parts(); len(rows) != 4 || len(rows[0]) != len(h) {
		t.Errorf("table %v %v", h, rows)
	}
}

// TestWhole: the whole step's ratio to its parts, refused when disturbed or implausibly slow.
func TestWhole(t *testing.T) {
	for _, tc := range []struct {
		name      string
		step, sum float64
		disturbed bool
		ratio     float64
		refused   string
	}{
		{"one call saves", 0.8, 1, false, 0.8, ""},
		{"about the parts", 1.1, 1, false, 1.1, ""},
		{"the review's 13× whole step", 19.2e-3, 1.467e-3, false, 0, "likely disturbed"},
		{"disturbed", 0.8, 1, true, 0, "disturbed"},
		{"no time", 0, 1, false, 0, "no time"},
	} {
		r, why := Whole(tc.step, tc.sum, tc.disturbed)
		if r != tc.ratio || (tc.refused == "") != (why == "") || !strings.Contains(why, tc.refused) {
			t.Errorf("%s: Whole = %v, %q; want %v, %q", tc.name, r, why, tc.ratio, tc.refused)
		}
	}
}
