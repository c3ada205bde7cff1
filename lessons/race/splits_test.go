package race

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestSplitsRefused(t *testing.T) {
	if err := (Splits{Budget: SplitBudget, Sides: []int{16, 64, 256}}).Validate(); err != nil {
		t.Fatalf("the cell's default split is refused: %v", err)
	}
	tests := []struct {
		s    Splits
		want string
	}{
		{Splits{Budget: SplitBudget, Sides: []int{1e9}}, "side 1000000000 refused before anything is allocated"},
		{Splits{Budget: SplitBudget, Sides: []int{0}}, "refused"},
		{Splits{Budget: SplitBudget}, "at least one"},
		{Splits{Budget: SplitBudget, Sides: make([]int, 9)}, "at most 8"},
		{Splits{Budget: 1e3, Sides: []int{256}}, "does not hold one 256×256 matmul"},
		{Splits{Budget: 1e12, Sides: []int{8}}, "calls"},
	}
	for _, tc := range tests {
		err := tc.s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
		if _, err := SplitsHere(tc.s, nil); err == nil {
			t.Errorf("SplitsHere ran a refused split %+v", tc.s)
		}
	}
}

// TestPerCallNote decides go's per-call sentence from the numbers: the reviewer's run (go 39 µs per
// 8×8 call against xla:cpu's 13 µs, go's large products slow) must not read "go pays less per call".
func TestPerCallNote(t *testing.T) {
	split := func(dev string, side int, total time.Duration) results.Result {
		w := Split(SplitBudget, side)
		r := results.Result{FLOPs: w.FLOPs(), Params: w.Params(), Provenance: results.Provenance{Device: dev}}
		r.Stats.Median = total
		return r
	}
	calls := time.Duration(Split(SplitBudget, 8).Calls)
	rs := []results.Result{
		split(devices.CPU, 8, 13*time.Microsecond*calls), split(devices.CPU, 256, 300*time.Microsecond),
		split(devices.Go, 8, 39*time.Microsecond*calls), split(devices.Go, 256, 34*time.Millisecond),
	}
	n := perCallNote(rs)
	for _, want := range []string{"go pays 3× more per call", "because its fastest split is 113× slower, not because its calls are cheap (they cost 3× more)"} {
		if !strings.Contains(n, want) {
			t.Errorf("perCallNote lacks %q:\n%s", want, n)
		}
	}
	// This machine's run at 16:49: go 11.1 µs per call against 13.4 µs, but 16× slower at 256×256.
	rs[2], rs[3] = split(devices.Go, 8, 11*time.Microsecond*calls), split(devices.Go, 256, 4800*time.Microsecond)
	if n := perCallNote(rs); !strings.Contains(n, "go pays 1.2× less per call") || !strings.Contains(n, "mostly because its fastest split is 16× slower; its calls are only 1.2× cheaper") {
		t.Errorf("slightly cheaper go calls:\n%s", n)
	}
	rs[2], rs[3] = split(devices.Go, 8, 2*time.Microsecond*calls), split(devices.Go, 256, 600*time.Microsecond)
	if n := perCallNote(rs); !strings.Contains(n, "mostly because its calls are cheaper (6.5×") {
		t.Errorf("cheap go calls:\n%s", n)
	}
	rs[2], rs[3] = split(devices.Go, 8, 13*time.Microsecond*calls), split(devices.Go, 256, 4800*time.Microsecond)
	if n := perCallNote(rs); !strings.Contains(n, "(about the same per call)") || !strings.Contains(n, "16× slower; the calls cost about the same") {
		t.Errorf("go calls as dear as xla:cpu's:\n%s", n)
	}
	if perCallNote(rs[:2]) != "" {
		t.Error("a note without the go backend")
	}
}
