package memory

import (
	"strings"
	"testing"
)

func TestSizesRefused(t *testing.T) {
	if err := (Sizes{Width: 256, Depth: 6, Batches: []int{64, 1024, 4096}}).Validate(); err != nil {
		t.Fatalf("the cell's default sizes are refused: %v", err)
	}
	tests := []struct {
		s    Sizes
		want string
	}{
		{Sizes{Width: 256, Depth: 6, Batches: []int{1e9}}, "batch 1000000000 refused before anything is allocated"},
		{Sizes{Width: 256, Depth: 6, Batches: []int{0}}, "refused"},
		{Sizes{Width: 256, Depth: 6}, "at least one"},
		{Sizes{Width: 256, Depth: 6, Batches: make([]int, 9)}, "at most 8"},
		{Sizes{Width: 0, Depth: 6, Batches: []int{8}}, "width 0"},
		{Sizes{Width: 256, Depth: 100, Batches: []int{8}}, "depth 100"},
	}
	for _, tc := range tests {
		err := tc.s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
		if _, err := SweepSizes(tc.s, nil); err == nil {
			t.Errorf("SweepSizes ran refused sizes %+v", tc.s)
		}
	}
}
