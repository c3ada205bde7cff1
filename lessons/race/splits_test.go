package race

import (
	"strings"
	"testing"
)

func TestSplitsRefused(t *testing.T) {
	if err := (Splits{Budget: SplitBudget, Sides: []int{16, 64, 256}}).Validate(); err != nil {
		t.Fatalf("the cell's default split is refused: %v", err)
	}
	tests := []struct {
		s    Splits
		want string
	}{
		{Splits{Budget: SplitBudget, Sides: []int{1e9}}, "side 1000000000 refused before anything is allocated"},
		{Splits{Budget: SplitBudget, Sides: []int{0}}, "refused"},
		{Splits{Budget: SplitBudget}, "at least one"},
		{Splits{Budget: SplitBudget, Sides: make([]int, 9)}, "at most 8"},
		{Splits{Budget: 1e3, Sides: []int{256}}, "does not hold one 256×256 matmul"},
		{Splits{Budget: 1e12, Sides: []int{8}}, "calls"},
	}
	for _, tc := range tests {
		err := tc.s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
		if _, err := SplitsHere(tc.s, nil); err == nil {
			t.Errorf("SplitsHere ran a refused split %+v", tc.s)
		}
	}
}
