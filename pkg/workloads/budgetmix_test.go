package workloads

import (
	"math"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

func TestBudgetMixDoublesOneBudget(t *testing.T) {
	for _, w := range []BudgetMix{
		{Side: 64, Chain: 3, N: 1000, Type: dtypes.Float32},
		{Side: 256, Chain: 2, N: 16 << 20, Passes: 2, Type: dtypes.Float32},
		{Side: 100, Chain: 1, N: 777, Passes: 3, Type: dtypes.Float32},
	} {
		if f := w.FLOPsDoubled(); f.FLOPs() != 2*w.FLOPs() || f.Bytes() != w.Bytes() {
			t.Errorf("%s FLOPsDoubled: %g FLOPs %g bytes, from %g, %g", w, f.FLOPs(), f.Bytes(), w.FLOPs(), w.Bytes())
		}
		// Twice the bytes to within one element per pass, at the same FLOPs and twice the passes.
		if b := w.BytesDoubled(); math.Abs(b.Bytes()-2*w.Bytes()) > float64(4*2*b.passes()) || b.FLOPs() != w.FLOPs() || b.passes() != 2*w.passes() {
			t.Errorf("%s BytesDoubled: %g FLOPs %g bytes %d passes, from %g, %g", w, b.FLOPs(), b.Bytes(), b.passes(), w.FLOPs(), w.Bytes())
		}
	}
	if (BudgetMix{Side: 1, Chain: 0, N: 1, Type: dtypes.Float32}).Validate() == nil {
		t.Error("a chain of 0 products validated")
	}
}

func TestBudgetMixIsCorrect(t *testing.T) {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		t.Fatal(err)
	}
	for _, passes := range []int{0, 2, 3} { // an odd and an even number of negations
		w := BudgetMix{Side: 96, Chain: 4, N: 5000, Passes: passes, Type: dtypes.Float32, Seed: 7}
		rel, err := Compiled(t, dev, w).Check()
		if err != nil || rel > 1e-4 {
			t.Errorf("%s: relative error %g, err %v", w, rel, err)
		}
	}
}
