package batching

import (
	"strings"
	"testing"
)

func TestSizesRefused(t *testing.T) {
	if err := (Sizes{Hidden: 64, Batches: []int{1, 4, 16}}).Validate(); err != nil {
		t.Fatalf("good sizes refused: %v", err)
	}
	for _, tc := range []struct {
		s    Sizes
		want string
	}{
		{Sizes{Hidden: 64, Batches: []int{1e9}}, "batch 1000000000 refused before anything is allocated"},
		{Sizes{Hidden: 64, Batches: []int{0}}, "refused"},
		{Sizes{Hidden: 0, Batches: []int{1}}, "hidden width 0"},
		{Sizes{Hidden: 64}, "at least one"},
		{Sizes{Hidden: 64, Batches: make([]int, 17)}, "at most"},
	} {
		err := tc.s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
		if _, err := SweepSizes(tc.s, nil); err == nil {
			t.Errorf("SweepSizes ran refused sizes %+v", tc.s)
		}
	}
}
