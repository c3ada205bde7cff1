package workloads

import (
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

func TestBudgetMixDoublesOneBudget(t *testing.T) {
	w := BudgetMix{Side: 64, Chain: 3, N: 1000, Type: dtypes.Float32}
	if f := w.FLOPsDoubled(); f.FLOPs() != 2*w.FLOPs() || f.Bytes() != w.Bytes() {
		t.Errorf("FLOPsDoubled: %g FLOPs %g bytes, from %g, %g", f.FLOPs(), f.Bytes(), w.FLOPs(), w.Bytes())
	}
	if b := w.BytesDoubled(); b.Bytes() != 2*w.Bytes() || b.FLOPs() != w.FLOPs() {
		t.Errorf("BytesDoubled: %g FLOPs %g bytes, from %g, %g", b.FLOPs(), b.Bytes(), w.FLOPs(), w.Bytes())
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
	inst := Compiled(t, dev, BudgetMix{Side: 96, Chain: 4, N: 5000, Type: dtypes.Float32, Seed: 7})
	rel, err := inst.Check()
	if err != nil || rel > 1e-4 {
		t.Errorf("relative error %g, err %v", rel, err)
	}
}
