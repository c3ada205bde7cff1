package bigpicture

import (
	"strings"
	"testing"
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
	}
}
