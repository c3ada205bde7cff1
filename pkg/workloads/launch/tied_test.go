package launch

import (
	"math"
	"testing"
)

func TestTiedForwardReference(t *testing.T) {
	for _, tc := range []struct {
		name     string
		w        TiedForward
		x, wt, b []float64
		want     []float64
	}{
		{"one layer, width 1", TiedForward{Batch: 1, Width: 1, Layers: 1}, []float64{0.5}, []float64{2}, []float64{-0.25},
			[]float64{math.Tanh(0.75)}},
		{"two layers, width 1", TiedForward{Batch: 1, Width: 1, Layers: 2}, []float64{0.5}, []float64{2}, []float64{-0.25},
			[]float64{math.Tanh(2*math.Tanh(0.75) - 0.25)}},
		// Rows are independent; W's row k feeds output column j as W[k·n+j].
		{"batch 2, width 2", TiedForward{Batch: 2, Width: 2, Layers: 1}, []float64{1, 0, 0, 1}, []float64{0.1, 0.2, 0.3, 0.4}, []float64{0, 0.5},
			[]float64{math.Tanh(0.1), math.Tanh(0.7), math.Tanh(0.3), math.Tanh(0.9)}},
	} {
		got := tc.w.Reference(tc.x, tc.wt, tc.b)
		for i := range tc.want {
			if math.Abs(got[i]-tc.want[i]) > 1e-15 {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
				break
			}
		}
	}
}

func TestTiedForwardCallsAndErrors(t *testing.T) {
	for _, tc := range []struct {
		w     TiedForward
		calls int
		label string
		bad   bool
	}{
		{TiedForward{Batch: 1, Width: 16, Layers: 16}, 48, "16-layer MLP forward, batch 1, width 16: one executable per op", false},
		{TiedForward{Batch: 1, Width: 16, Layers: 16, Fused: true}, 1, "16-layer MLP forward, batch 1, width 16: one fused executable", false},
		{TiedForward{Batch: 0, Width: 16, Layers: 16}, 48, "16-layer MLP forward, batch 0, width 16: one executable per op", true},
		{TiedForward{Batch: 1, Width: 16, Layers: 0, Fused: true}, 1, "0-layer MLP forward, batch 1, width 16: one fused executable", true},
	} {
		if c := tc.w.Calls(); c != tc.calls || tc.w.Params()["calls"] != c {
			t.Errorf("%v: calls %d (params %v), want %d", tc.w, c, tc.w.Params(), tc.calls)
		}
		if tc.w.String() != tc.label {
			t.Errorf("String() = %q, want %q", tc.w.String(), tc.label)
		}
		if err := tc.w.Validate(); (err != nil) != tc.bad {
			t.Errorf("%v: Validate() = %v, want error %v", tc.w, err, tc.bad)
		}
	}
}
