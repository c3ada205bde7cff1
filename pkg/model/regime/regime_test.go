package regime

import (
	"strings"
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
)

// A CPU-like device: 1 TFLOP/s and 50 GB/s measured, ridge 20 FLOP/byte.
const cpuFLOPS, cpuBW = 1e12, 50e9

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func budget(w interface {
	FLOPs() float64
	Bytes() float64
}, t time.Duration) Budget {
	return Budget{FLOPs: w.FLOPs(), Bytes: w.Bytes(), Measured: t, CeilingFLOPS: cpuFLOPS, CeilingBytesPerSec: cpuBW}
}

// TestFlatTimeBelowTheRidgeIsMemoryBound is the case the old doubling test got wrong: a matmul
// dominated by its 4096×4096 weights, at batch 8 and 16 (far below the ridge batch), takes the same
// time at both batches because it reads the same 64 MiB of weights. Flat time when the work doubles,
// and memory-bandwidth-bound, not overhead-bound.
func TestFlatTimeBelowTheRidgeIsMemoryBound(t *testing.T) {
	const d = 4096
	w8 := workloads.MatMul{M: 8, K: d, N: d, Type: dtypes.Float32}
	w16 := workloads.MatMul{M: 16, K: d, N: d, Type: dtypes.Float32}
	if r := w16.FLOPs() / w8.FLOPs(); r != 2 {
		t.Fatalf("doubling the batch gave %v× the FLOPs", r)
	}
	if r := w16.Bytes() / w8.Bytes(); r > 1.01 {
		t.Fatalf("the weights should dominate the bytes: batch 16 moves %.3f× batch 8's", r)
	}
	// T_memory ≈ 67 MB ÷ 50 GB/s ≈ 1.35 ms; measured 1.6 ms at both batches: flat.
	for _, w := range []workloads.MatMul{w8, w16} {
		v := budget(w, ms(1.6)).Classify()
		if v.Regime != Memory {
			t.Errorf("batch %d, flat 1.6 ms: %s, want %s", w.M, v, Memory)
		}
		if v.TMemory < 1.3e-3 || v.TMemory > 1.4e-3 || v.TCompute > v.TMemory/2 {
			t.Errorf("batch %d: T_memory %g s, T_compute %g s", w.M, v.TMemory, v.TCompute)
		}
		if !strings.Contains(v.String(), "bytes explain") {
			t.Errorf("verdict line %q", v)
		}
	}
}

func TestClassify(t *testing.T) {
	big := workloads.Square(2048, dtypes.Float32) // 17 GFLOP on 50 MB: intensity 341 ≫ ridge 20
	tests := []struct {
		name string
		b    Budget
		want string
	}{
		{"large matmul near the compute ceiling", budget(big, ms(25)), Compute},
		{"large copy near the bandwidth ceiling", budget(membound.Copy{N: 32 << 20, Type: dtypes.Float32}, ms(6)), Memory},
		// A batch-1 MLP step: 8×8 matmuls, microseconds of dispatch for nanoseconds of work.
		{"tiny matmul, 50 µs of dispatch", budget(workloads.Square(8, dtypes.Float32), 50*time.Microsecond), Overhead},
		{"no time", Budget{FLOPs: 1, Bytes: 1, CeilingFLOPS: 1, CeilingBytesPerSec: 1}, Unknown},
		{"no ceilings", Budget{FLOPs: 1, Bytes: 1, Measured: time.Second}, Unknown},
	}
	for _, tc := range tests {
		v := tc.b.Classify()
		if v.Regime != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, v, tc.want)
		}
		if tc.want != Unknown && (v.Explained <= 0 || v.TMeasured != tc.b.Measured.Seconds()) {
			t.Errorf("%s: %+v", tc.name, v)
		}
	}
}

// TestTheRule is the rule's edges, with T_memory = 1 ms against measured times around it: the larger
// budget names the regime from half the time up to 120% of it; under half it is overhead; over 120%
// no regime is named, and the verdict says the ceiling is too low.
func TestTheRule(t *testing.T) {
	bytes := Budget{Bytes: 1e6, CeilingFLOPS: 1e12, CeilingBytesPerSec: 1e9}             // T_memory 1 ms
	flops := Budget{FLOPs: 1e9, Bytes: 1e3, CeilingFLOPS: 1e12, CeilingBytesPerSec: 1e9} // T_compute 1 ms
	for _, tc := range []struct {
		name     string
		b        Budget
		measured float64 // ms
		want     string
	}{
		{"bytes explain 10%", bytes, 10, Overhead},
		{"bytes explain 48%", bytes, 2.1, Overhead},
		{"bytes explain 53%", bytes, 1.9, Memory},
		{"bytes explain all of it", bytes, 1, Memory},
		{"bytes 18% over the time: noise", bytes, 0.85, Memory},
		{"bytes 25% over the time", bytes, 0.8, CeilingTooLow},
		{"bytes 4× the time (a cache-resident step)", bytes, 0.25, CeilingTooLow},
		{"FLOPs explain 48%", flops, 2.1, Overhead},
		{"FLOPs explain 53%", flops, 1.9, Compute},
		{"FLOPs 8× the time (a ceiling measured under load)", flops, 0.125, CeilingTooLow},
	} {
		b := tc.b
		b.Measured = ms(tc.measured)
		v := b.Classify()
		if v.Regime != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, v, tc.want)
		}
		if tc.want == CeilingTooLow && (v.Why != WhyTooLow || !strings.Contains(v.String(), "re-measure the ceilings")) {
			t.Errorf("%s: the refusal does not say why: %s", tc.name, v)
		}
		if tc.want != CeilingTooLow && v.Why != "" {
			t.Errorf("%s: a verdict with a Why: %+v", tc.name, v)
		}
	}
}

func TestTable(t *testing.T) {
	mk := func(pair, size int, med time.Duration, flops, bytes float64) results.Result {
		r := results.Result{Label: "w", FLOPs: flops, Bytes: bytes, CeilingFLOPS: 1e12, CeilingBytesPerSec: 1e10,
			Params: map[string]int{ParamPair: pair, ParamSize: size}}
		r.Stats.Min, r.Stats.Median = med, med
		return r
	}
	rs := []results.Result{
		mk(0, 1, 10*time.Microsecond, 1e3, 1e3), mk(0, 2, 11*time.Microsecond, 2e3, 2e3), // overhead
		mk(1, 1, time.Millisecond, 1e6, 1e7), mk(1, 2, time.Millisecond, 2e6, 1e7), // flat, bytes explain it
		mk(2, 1, time.Millisecond, 1e9, 1e6), mk(2, 2, 2*time.Millisecond, 2e9, 1e6), // compute
	}
	ps := Pairs(rs)
	if len(ps) != 3 {
		t.Fatalf("%d pairs, want 3", len(ps))
	}
	for i, want := range []string{Overhead, Memory, Compute} {
		if ps[i].Verdict.Regime != want || ps[i].VerdictTwo.Regime != want {
			t.Errorf("pair %d: %s / %s, want %s", i, ps[i].Verdict.Regime, ps[i].VerdictTwo.Regime, want)
		}
	}
	if s := Table(rs).String(); !strings.Contains(s, "1.00×") || !strings.Contains(s, Memory) || !strings.Contains(s, "T_memory") || !strings.Contains(s, "half") {
		t.Errorf("table:\n%s", s)
	}
	// Overhead-bound by the budgets, yet the time follows the FLOPs (lesson 07's MLP step: 27% of the
	// ceiling, 1.97× at twice the batch): no fixed cost, and the table says so; a flat pair does not.
	rs = []results.Result{mk(0, 1, time.Millisecond, 2.7e8, 1e6), mk(0, 2, 1970*time.Microsecond, 5.4e8, 1.24e6),
		mk(1, 1, time.Millisecond, 1e7, 1e6), mk(1, 2, 1050*time.Microsecond, 2e7, 1.2e6)}
	ps = Pairs(rs)
	if g := ps[0].GrowsWithWork(); ps[0].Verdict.Regime != Overhead || !strings.Contains(g, "1.97×") || !strings.Contains(g, "at 27% of") {
		t.Errorf("time that follows the FLOPs: %s, %q", ps[0].Verdict.Regime, g)
	}
	if g := ps[1].GrowsWithWork(); g != "" {
		t.Errorf("flat time: %q, want none", g)
	}
	if s := Table(rs).String(); strings.Count(s, "grows with the arithmetic") != 1 {
		t.Errorf("table should carry one growth note:\n%s", s)
	}
	// A step faster than its budget: the table prints the refusal, not a regime.
	rs = []results.Result{mk(0, 1, time.Millisecond, 0, 4e7), mk(0, 2, time.Millisecond, 0, 8e7)}
	if s := Table(rs).String(); strings.Count(s, CeilingTooLow) != 2 || strings.Contains(s, Memory) {
		t.Errorf("table of steps 4× and 8× faster than their budgets:\n%s", s)
	}
}

// TestOverheadNamesWhatHoldsTheRest: an overhead verdict names fresh memory's first touch only as far
// as the measured cost per page accounts for the time (lesson 02's a·x+b: 128 MiB fresh at ~1.1 µs a
// page is ~36 ms — enough for a 48 ms run, not for a 226 ms one), and fixed costs when there is none.
func TestOverheadNamesWhatHoldsTheRest(t *testing.T) {
	const perByte = 1.1e-6 / 4096 // ~1.1 µs per 4 KiB page
	for _, tc := range []struct {
		name          string
		fresh         float64
		firstTouch    float64
		measured      time.Duration
		wantFresh     bool
		want, notWant string
	}{
		{"no fresh memory", 0, perByte, 48 * time.Millisecond, false, "fixed costs hold the rest", "first touch"},
		{"first touch explains it", 128 << 20, perByte, 48 * time.Millisecond, true, "first touch of fresh memory accounts for at least half of the rest: 128 MiB of new pages", "rerun"},
		{"first touch explains a part", 128 << 20, perByte, 226 * time.Millisecond, false, "neither bytes nor page faults", "accounts for at least half of the rest"},
		{"cost per page not measured", 128 << 20, 0, 48 * time.Millisecond, false, "fixed costs hold the rest", "first touch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Budget{FLOPs: 1e6, Bytes: 256 << 20, Measured: tc.measured, CeilingFLOPS: 1e11, CeilingBytesPerSec: 40e9,
				FreshBytes: tc.fresh, FirstTouch: tc.firstTouch}
			v := b.Classify()
			s := v.String()
			if v.Regime != Overhead || v.FreshMemory() != tc.wantFresh || !strings.Contains(s, tc.want) || strings.Contains(s, tc.notWant) {
				t.Errorf("FreshMemory %v, want %v:\n%s", v.FreshMemory(), tc.wantFresh, s)
			}
		})
	}
}

// TestCacheResident: a CPU step whose bytes fit in the last-level cache gets no verdict from the DRAM
// roof when T_memory is a notable part of its time, overhead or memory verdict alike (lesson 03's
// wide layer at batch 1: 1.2 MB of weights, T_memory 43% of 121 µs); a toy whose T_memory is tiny
// even at DRAM rate stays overhead-bound; bytes beyond the cache keep their verdict.
func TestCacheResident(t *testing.T) {
	cs, err := devices.CPUCaches()
	if err != nil || len(cs) == 0 {
		t.Fatalf("this test needs the CPU's cache sizes: %v", err)
	}
	llc := float64(cs[len(cs)-1].Bytes)
	for _, tc := range []struct {
		name     string
		bytes    float64
		measured time.Duration
		regime   string
		want     bool
	}{
		{"wide layer, batch 1: overhead by the DRAM roof", 1.2e6 * 2, 121 * time.Microsecond, Overhead, true},
		{"toy: T_memory tiny even at DRAM rate", 20e3, 15 * time.Microsecond, Overhead, false},
		{"memory-bound in cache", llc / 4, time.Duration(float64(time.Second) * llc / 4 / 40e9 * 1.2), Memory, true},
		{"memory-bound beyond the cache", 8 * llc, time.Duration(float64(time.Second) * 8 * llc / 40e9 * 1.2), Memory, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := Budget{FLOPs: 1, Bytes: tc.bytes, Measured: tc.measured, CeilingFLOPS: 1e11, CeilingBytesPerSec: 40e9}.Classify()
			if v.Regime != tc.regime || v.CacheResident(tc.bytes) != tc.want {
				t.Errorf("%s, CacheResident %v, want %s and %v", v, v.CacheResident(tc.bytes), tc.regime, tc.want)
			}
		})
	}
}
