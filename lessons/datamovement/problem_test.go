package datamovement

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// The pageable upload is the staging memcpy at the learner's measured copy bandwidth (reads + writes:
// 2 × 14 GB at 20 GB/s = 1.4 s) plus the link's time, 14/64 s. The rate is the ceiling the results
// carry, not the largest copy's (into fresh pages, it swung the answer about 8× between runs).
func TestProblemPageable(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	if a := ProblemPageable.CheckAnswer(1); a.Status != exercise.Unsolved || !strings.Contains(a.Err.Error(), "run") {
		t.Fatalf("nothing measured: %v %v", a.Status, a.Err)
	}
	var rs []results.Result
	for _, n := range []int{4 << 10, 1 << 30} {
		d := time.Duration(float64(n) / 10e9 * 1e9) // 10 GB/s
		if n == 4<<10 {
			d = 20 * time.Microsecond // the fixed cost of a small copy
		}
		rs = append(rs, results.Result{Workload: "transfer-h2d", Params: map[string]int{"bytes": n}, Bytes: float64(n),
			Stats:      results.Stats{N: 5, Median: d, Min: d, P90: d, Mean: d},
			Provenance: results.Provenance{Device: devices.CPU, Model: "test", Date: time.Now(), Run: results.RunID()}})
	}
	for i := range rs {
		rs[i].CeilingBytesPerSec = 20e9
	}
	slow := rs[1]
	slow.Params, slow.Bytes = map[string]int{"bytes": 2 << 30}, 2<<30
	slow.Stats.Median = time.Duration(2<<30) * 10 / 12 // fresh pages: 1.2 GB/s (1.2 bytes per ns)
	rs = append(rs, slow)
	if err := results.Keep(KeepTransfer, rs); err != nil {
		t.Fatal(err)
	}
	s, err := ProblemPageable.Solve()
	if err != nil {
		t.Fatal(err)
	}
	if want := 1.4 + 14.0/64; math.Abs(s.Value-want) > 0.01 {
		t.Errorf("pageable upload %v s, want %v", s.Value, want)
	}
	if a := ProblemPageable.CheckAnswer(14.0 / 64); a.Status != exercise.Off {
		t.Errorf("the pinned time accepted as the pageable one: %v", a.Status)
	}
}
