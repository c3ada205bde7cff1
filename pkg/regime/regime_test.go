package regime

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/results"
)

func TestOf(t *testing.T) {
	tests := []struct {
		t1, t2, intensity, ridge float64
		want                     string
	}{
		{1, 1.1, 0.5, 10, Overhead},
		{1, 1.29, 100, 10, Overhead},
		{1, 2, 0.5, 10, Memory},
		{1, 1.9, 50, 10, Compute},
		{1, 2, 50, 0, "not overhead-bound (no measured ridge to tell memory from compute)"},
	}
	for _, tc := range tests {
		if got := Of(tc.t1, tc.t2, tc.intensity, tc.ridge); got != tc.want {
			t.Errorf("Of(%v, %v, %v, %v) = %q, want %q", tc.t1, tc.t2, tc.intensity, tc.ridge, got, tc.want)
		}
	}
}

func TestTable(t *testing.T) {
	mk := func(pair, size int, min time.Duration, flops, bytes float64) results.Result {
		r := results.Result{Label: "w", FLOPs: flops, Bytes: bytes, CeilingFLOPS: 100, CeilingBytesPerSec: 10,
			Params: map[string]int{ParamPair: pair, ParamSize: size}}
		r.Stats.Min, r.Stats.Median = min, min
		return r
	}
	rs := []results.Result{
		mk(0, 1, 10*time.Microsecond, 1, 1), mk(0, 2, 11*time.Microsecond, 2, 2), // overhead
		mk(1, 1, time.Millisecond, 1, 1), mk(1, 2, 2*time.Millisecond, 2, 2), // intensity 1 < ridge 10
		mk(2, 1, time.Millisecond, 100, 1), mk(2, 2, 2*time.Millisecond, 200, 2), // 100 > 10
	}
	vs := Verdicts(rs)
	if len(vs) != 3 {
		t.Fatalf("%d verdicts, want 3", len(vs))
	}
	for i, want := range []string{Overhead, Memory, Compute} {
		if vs[i].Regime != want {
			t.Errorf("pair %d: %s, want %s", i, vs[i].Regime, want)
		}
	}
	if s := Table(rs).String(); !strings.Contains(s, "1.10×") || !strings.Contains(s, "compute-bound") {
		t.Errorf("table:\n%s", s)
	}
}
