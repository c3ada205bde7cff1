package fromresult

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

func result(device string, recorded bool, batch int, median time.Duration) results.Result {
	r := results.Result{
		Label: fmt.Sprintf("step batch %d", batch), Params: map[string]int{"batch": batch},
		FLOPs: 2e9, Bytes: 1e8,
		Provenance: results.Provenance{Device: device, Model: "NVIDIA H200 (139 GiB)", Recorded: recorded,
			Date: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Run: results.RunID()},
	}
	r.Stats.Median = median
	return r
}

func batch(r results.Result) float64 { return float64(r.Params["batch"]) }

func TestSeries(t *testing.T) {
	rs := []results.Result{
		result("xla:cpu", false, 64, 8*time.Millisecond),
		result("xla:cuda", true, 8, time.Millisecond),
		result("xla:cpu", false, 8, time.Millisecond),
		result("xla:cuda", true, 64, time.Millisecond),
	}
	got := Series(rs, batch, results.Result.Seconds)
	tests := []struct {
		name, legend string
		xs           []float64
	}{
		{"xla:cpu", "xla:cpu — measured live", []float64{8, 64}},
		{"xla:cuda", "xla:cuda — recorded on NVIDIA H200 (139 GiB), 2026-11-30", []float64{8, 64}},
	}
	if len(got) != len(tests) {
		t.Fatalf("got %d series, want %d: %+v", len(got), len(tests), got)
	}
	for i, tc := range tests {
		s := got[i]
		if s.Name != tc.name || s.Legend() != tc.legend {
			t.Errorf("series %d: %q / %q, want %q / %q", i, s.Name, s.Legend(), tc.name, tc.legend)
		}
		for j, x := range tc.xs {
			if s.Points[j].X != x {
				t.Errorf("series %q point %d at x = %v, want %v (sorted)", s.Name, j, s.Points[j].X, x)
			}
		}
	}
}

func TestLaneAndPoint(t *testing.T) {
	r := result("xla:cuda", true, 64, 2*time.Millisecond)
	l := Lane(r)
	if l.Device != "xla:cuda" || l.Time != 2*time.Millisecond || l.Source != charts.Recorded {
		t.Errorf("Lane = %+v", l)
	}
	p := Point(r)
	if p.Intensity != 20 || p.FLOPS != 1e12 || p.Source != charts.Recorded {
		t.Errorf("Point = %+v, want intensity 20 and 1 TFLOP/s", p)
	}
	now := time.Now()
	if src, note := Source(results.Provenance{Device: "xla:cpu", Run: results.RunID(), Date: now}); src != charts.Live || note != "" {
		t.Errorf("live provenance gave %v %q", src, note)
	}
	// Not measured in this run, or built without a provenance: no origin, which charts refuse.
	for _, p := range []results.Provenance{{Device: "xla:cpu", Run: "another kernel", Date: now}, {Device: "xla:cpu"}} {
		if src, _ := Source(p); src != charts.NoOrigin {
			t.Errorf("%+v gave %v, want no origin", p, src)
		}
	}
}

// A disturbed measurement is kept in its series and marked on the chart; quiet ones are not marked.
func TestDisturbedPointsAreMarked(t *testing.T) {
	res := func(batch int, others float64) results.Result {
		return results.Result{Params: map[string]int{"batch": batch}, Provenance: results.Provenance{Device: "xla:cpu", Run: results.RunID()},
			Stats: results.Stats{N: 5, Median: time.Duration(batch) * time.Millisecond,
				Disturbance: results.Disturbance{Counted: true, OthersCores: others}}}
	}
	x := func(r results.Result) float64 { return float64(r.Params["batch"]) }
	for _, tc := range []struct {
		name   string
		rs     []results.Result
		marked int
	}{
		{"quiet", []results.Result{res(1, 0), res(2, 0.05)}, 0},
		{"one disturbed", []results.Result{res(1, 0), res(2, 0.6), res(4, 0)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Series(tc.rs, x, results.Result.Seconds)
			n := 0
			for _, p := range s[0].Points {
				if p.Disturbed {
					n++
				}
			}
			if len(s[0].Points) != len(tc.rs) || n != tc.marked {
				t.Fatalf("%d points, %d disturbed; want %d, %d", len(s[0].Points), n, len(tc.rs), tc.marked)
			}
			p, err := charts.TimeVsBatch("t", s)
			if err != nil {
				t.Fatal(err)
			}
			svg, err := charts.SVG(p, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(svg), "disturbed: other programs"); got != (tc.marked > 0) {
				t.Errorf("legend says disturbed: %v, want %v", got, tc.marked > 0)
			}
		})
	}
}
