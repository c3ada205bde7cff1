package main

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure"
)

func TestRatioText(t *testing.T) {
	pt := func(workload string, params map[string]int, metric string, others float64, impls map[string]float64) measure.BenchPoint {
		p := measure.BenchPoint{Workload: workload, Params: params, Metric: metric, Others: others, Impls: map[string]measure.BenchImpl{}}
		for k, v := range impls {
			p.Impls[k] = measure.BenchImpl{Value: v}
		}
		return p
	}
	for _, tc := range []struct {
		name string
		p    measure.BenchPoint
		want string
	}{
		{"8×8 met", pt("matmul", map[string]int{"n": 8}, measure.PerCall, 0, map[string]float64{"xla:cpu": 50e-6, "jax": 44e-6}), "1.14× JAX's time (≤ 1.2× ✓)"},
		{"8×8 missed", pt("matmul", map[string]int{"n": 8}, measure.PerCall, 0, map[string]float64{"xla:cpu": 80e-6, "jax": 40e-6}), "2.00× JAX's time (≤ 1.2× ✗)"},
		{"disturbed", pt("mlp-sgd", map[string]int{"batch": 256}, measure.PerCall, 30, map[string]float64{"xla:cpu": 300e-6, "jax": 283e-6}), "(≤ 1.1× ✓ disturbed)"},
		{"large vs best", pt("matmul", map[string]int{"n": 1024}, measure.GFLOPS, 0, map[string]float64{"xla:cpu": 240, "jax": 230, "numpy": 300}), "0.80× numpy (≥ 0.95× ✗)"},
		{"no target", pt("matmul", map[string]int{"n": 64}, measure.PerCall, 0, map[string]float64{"xla:cpu": 50e-6, "jax": 50e-6}), "1.00× JAX's time"},
		{"no jax", pt("matmul", map[string]int{"n": 8}, measure.PerCall, 0, map[string]float64{"xla:cpu": 50e-6}), ""},
	} {
		got := ratioText(tc.p)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) || (tc.name == "no target" && strings.Contains(got, "(")) {
			t.Errorf("%s: ratioText = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestMissedWhy(t *testing.T) {
	pt := func(workload string, params map[string]int, others float64, x, j float64) measure.BenchPoint {
		return measure.BenchPoint{Workload: workload, Label: workload, Params: params, Metric: measure.PerCall, Others: others,
			Impls: map[string]measure.BenchImpl{"xla:cpu": {Value: x}, "jax": {Value: j}}}
	}
	for _, tc := range []struct {
		name string
		p    measure.BenchPoint
		want []string // substrings of the one line; nil: no line
	}{
		{"met", pt("mlp-sgd", map[string]int{"batch": 1}, 0, 18e-6, 17e-6), nil},
		{"no target", pt("matmul", map[string]int{"n": 64}, 0, 90e-6, 10e-6), nil},
		{"step missed", pt("mlp-sgd", map[string]int{"batch": 256}, 0, 300e-6, 250e-6),
			[]string{"1.20× JAX's time against ≤ 1.1×", "50.0 µs more", "input_output_alias", "1 device"}},
		{"matmul missed, disturbed", pt("matmul", map[string]int{"n": 8}, 40, 20e-6, 10e-6),
			[]string{"2.00×", "disturbed"}},
	} {
		got := missedWhy(measure.BenchReport{Points: []measure.BenchPoint{tc.p}})
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
