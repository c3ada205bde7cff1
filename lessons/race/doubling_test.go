package race

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

func TestDoublingValidate(t *testing.T) {
	for _, s := range []experiments.Scale{experiments.Laptop, experiments.GPU} {
		if err := DefaultDoubling(s).Validate(); err != nil {
			t.Errorf("the default at %v is refused: %v", s, err)
		}
	}
	for _, tc := range []struct {
		d    Doubling
		want string
	}{
		{Doubling{Batch: 0, Values: 1024, MatMulN: 64}, "batch 0"},
		{Doubling{Batch: 1, Values: MaxDoublingValues + 1, MatMulN: 64}, "values"},
		{Doubling{Batch: 1, Values: 1024, MatMulN: MaxDoublingMatMulN + 1}, "matmul n"},
	} {
		err := tc.d.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "refused") {
			t.Errorf("%+v: %v, want a refusal naming %q", tc.d, err, tc.want)
		}
		if _, err := DoubleOnEachDevice(tc.d, nil); err == nil {
			t.Errorf("%+v: DoubleOnEachDevice ran it", tc.d)
		}
	}
	if p := DefaultDoubling(experiments.Laptop).Pairs(); len(p) != 3 || workloads.FLOPsOf(p[0][1]) <= workloads.FLOPsOf(p[0][0]) {
		t.Errorf("pairs: %v", p)
	}
}
