package bigpicture

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

func TestRequestRefused(t *testing.T) {
	def := Request{Batch: 1, Hidden: 256, Depth: 2}
	if err := def.Validate(); err != nil {
		t.Fatalf("the cell's default request is refused: %v", err)
	}
	if def.forward() != SmallMLP {
		t.Errorf("the cell's default %v is not the lesson's SmallMLP %v", def.forward(), SmallMLP)
	}
	tests := []struct {
		q    Request
		want string
	}{
		{Request{Batch: 1e9, Hidden: 256, Depth: 2}, "batch 1000000000 refused before anything is allocated"},
		{Request{Batch: 0, Hidden: 256, Depth: 2}, "refused"},
		{Request{Batch: 1, Hidden: 0, Depth: 2}, "hidden width 0"},
		{Request{Batch: 1, Hidden: 256, Depth: 0}, "depth 0"},
	}
	for _, tc := range tests {
		err := tc.q.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.q, err, tc.want)
		}
		if _, err := InferenceAt(tc.q); err == nil {
			t.Errorf("InferenceAt ran a refused request %+v", tc.q)
		}
		if _, err := InferenceHere(tc.q); err == nil {
			t.Errorf("InferenceHere ran a refused request %+v", tc.q)
		}
	}
}

func TestStepSizesRefused(t *testing.T) {
	def := StepSizes{Batch: 256, Width: 512, Depth: 3} // notebooks/08-whole-picture.ipynb
	if err := def.Validate(); err != nil {
		t.Fatalf("the cell's default step is refused: %v", err)
	}
	if def != DefaultStep(experiments.Laptop) {
		t.Errorf("the cell's default %+v is not DefaultStep(Laptop) %+v", def, DefaultStep(experiments.Laptop))
	}
	tests := []struct {
		z    StepSizes
		want string
	}{
		{StepSizes{Batch: 1e9, Width: 512, Depth: 3}, "batch 1000000000 refused before anything is allocated"},
		{StepSizes{Batch: 0, Width: 512, Depth: 3}, "refused"},
		{StepSizes{Batch: 256, Width: 1e9, Depth: 3}, "width 1000000000 refused"},
		{StepSizes{Batch: 256, Width: 512, Depth: 0}, "depth 0"},
		{StepSizes{Batch: 1, Width: 8192, Depth: 16}, "parameters refused"},
		{StepSizes{Batch: 65536, Width: 1024, Depth: 3}, "FLOPs refused"},
	}
	for _, tc := range tests {
		err := tc.z.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.z, err, tc.want)
		}
		if _, _, err := RatesHere(tc.z); err == nil {
			t.Errorf("RatesHere ran a refused step %+v", tc.z)
		}
	}
}
