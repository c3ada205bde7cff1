package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/bench"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestRatioText(t *testing.T) {
	pt := func(workload string, params map[string]int, metric string, others float64, impls map[string]float64) bench.Point {
		p := bench.Point{Workload: workload, Params: params, Metric: metric, Others: others, Impls: map[string]bench.Impl{}}
		for k, v := range impls {
			p.Impls[k] = bench.Impl{Value: v}
		}
		return p
	}
	for _, tc := range []struct {
		name string
		p    bench.Point
		want string
	}{
		{"8×8 met", pt("matmul", map[string]int{"n": 8}, bench.PerCall, 0, map[string]float64{"xla:cpu": 50e-6, "jax": 44e-6}), "1.14× JAX's time (≤ 1.2× ✓)"},
		{"8×8 missed", pt("matmul", map[string]int{"n": 8}, bench.PerCall, 0, map[string]float64{"xla:cpu": 80e-6, "jax": 40e-6}), "2.00× JAX's time (≤ 1.2× ✗)"},
		{"disturbed", pt("mlp-sgd", map[string]int{"batch": 256}, bench.PerCall, 30, map[string]float64{"xla:cpu": 300e-6, "jax": 283e-6}), "(≤ 1.1× ✓ disturbed)"},
		{"large vs best", pt("matmul", map[string]int{"n": 1024}, bench.GFLOPS, 0, map[string]float64{"xla:cpu": 240, "jax": 230, "numpy": 300}), "0.80× numpy (≥ 0.95× ✗)"},
		{"no target", pt("matmul", map[string]int{"n": 64}, bench.PerCall, 0, map[string]float64{"xla:cpu": 50e-6, "jax": 50e-6}), "1.00× JAX's time"},
		{"no jax", pt("matmul", map[string]int{"n": 8}, bench.PerCall, 0, map[string]float64{"xla:cpu": 50e-6}), ""},
	} {
		got := ratioText(tc.p)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) || (tc.name == "no target" && strings.Contains(got, "(")) {
			t.Errorf("%s: ratioText = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestMissedWhy(t *testing.T) {
	pt := func(workload string, params map[string]int, others float64, x, j float64) bench.Point {
		return bench.Point{Workload: workload, Label: workload, Params: params, Metric: bench.PerCall, Others: others,
			Impls: map[string]bench.Impl{"xla:cpu": {Value: x}, "jax": {Value: j}}}
	}
	for _, tc := range []struct {
		name string
		p    bench.Point
		want []string // substrings of the one line; nil: no line
	}{
		{"met", pt("mlp-sgd", map[string]int{"batch": 1}, 0, 18e-6, 17e-6), nil},
		{"no target", pt("matmul", map[string]int{"n": 64}, 0, 90e-6, 10e-6), nil},
		{"step missed", pt("mlp-sgd", map[string]int{"batch": 256}, 0, 300e-6, 250e-6),
			[]string{"1.20× JAX's time against ≤ 1.1×", "50.0 µs more", "input_output_alias", "one device"}},
		{"matmul missed, disturbed", pt("matmul", map[string]int{"n": 8}, 40, 20e-6, 10e-6),
			[]string{"2.00×", "disturbed"}},
		{"throughput met", pt("matmul", map[string]int{"n": 1024}, 0, 200, 205), nil},
		{"throughput missed", pt("matmul", map[string]int{"n": 1024}, 0, 150, 200), []string{"0.75× jax's throughput against ≥ 0.95×"}},
	} {
		got := missedWhy(bench.Report{Points: []bench.Point{tc.p}})
		if tc.want == nil {
			if len(got) != 0 {
				t.Errorf("%s: missedWhy = %q, want nothing", tc.name, got)
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("%s: missedWhy = %q, want one line", tc.name, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got[0], w) {
				t.Errorf("%s: missedWhy = %q, want it to contain %q", tc.name, got[0], w)
			}
		}
	}
}

// A bench point is disturbed by other processes' CPU or by any cgroup throttling — the JAX/numpy
// worker's runs included — and the verdict and the missed line say so; a quiet point is not marked.
func TestBenchPointDisturbance(t *testing.T) {
	base := func(others float64, throttled uint64) bench.Point {
		return bench.Point{Workload: "matmul", Label: "matmul 8", Params: map[string]int{"n": 8}, Metric: bench.PerCall,
			Others: others, Throttled: throttled, ThrottledTime: time.Duration(throttled) * 5 * time.Millisecond,
			Impls: map[string]bench.Impl{"xla:cpu": {Value: 30e-6}, "jax": {Value: 10e-6}, "numpy": {Value: 12e-6}}}
	}
	for _, tc := range []struct {
		name      string
		p         bench.Point
		disturbed bool
		says      string
	}{
		{"quiet", base(1, 0), false, ""},
		{"others", base(20, 0), true, "others used 20% of the CPUs"},
		{"throttled", base(0, 3), true, "the CPU quota paused it 3 times (15ms)"},
		{"both", base(9, 1), true, "others used 9% of the CPUs, the CPU quota paused it 1 times"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.p.Disturbed(); got != tc.disturbed {
				t.Errorf("Disturbed() = %v, want %v", got, tc.disturbed)
			}
			if got := tc.p.DisturbedWhy(); !strings.Contains(got, tc.says) || (!tc.disturbed && got != "") {
				t.Errorf("DisturbedWhy() = %q, want %q", got, tc.says)
			}
			if got := strings.Contains(ratioText(tc.p), "disturbed"); got != tc.disturbed {
				t.Errorf("ratioText = %q", ratioText(tc.p))
			}
			why := strings.Join(missedWhy(bench.Report{Points: []bench.Point{tc.p}}), "\n")
			if tc.disturbed && !strings.Contains(why, tc.says) || !tc.disturbed && strings.Contains(why, "disturbed") {
				t.Errorf("missedWhy = %q", why)
			}
		})
	}
}

// The peer's disturbance: a worst case over rounds keeps the most others' CPU and every pause.
func TestWorstDisturbance(t *testing.T) {
	a := results.Disturbance{Counted: true, OthersCores: 0.3, Throttled: 2, ThrottledTime: time.Millisecond}
	b := results.Disturbance{Counted: true, OthersCores: 0.1, Throttled: 1, ThrottledTime: 2 * time.Millisecond}
	w := worst(worst(results.Disturbance{}, a), b)
	if !w.Counted || w.OthersCores != 0.3 || w.Throttled != 3 || w.ThrottledTime != 3*time.Millisecond || !w.Disturbed() {
		t.Errorf("worst = %+v", w)
	}
}
