package datamovement

import (
	"strings"
	"testing"
)

func TestTransfersRefused(t *testing.T) {
	if err := (Transfers{Sizes: []int{4 << 10, 1 << 20, 16 << 20}}).Validate(); err != nil {
		t.Fatalf("the cell's default sizes are refused: %v", err)
	}
	tests := []struct {
		t    Transfers
		want string
	}{
		{Transfers{Sizes: []int{1e9 * 8}}, "8000000000 bytes refused before anything is allocated"},
		{Transfers{Sizes: []int{0}}, "refused"},
		{Transfers{}, "at least one"},
		{Transfers{Sizes: make([]int, 13)}, "at most 12"},
	}
	for _, tc := range tests {
		err := tc.t.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.t, err, tc.want)
		}
		if _, err := TransfersHere(tc.t); err == nil {
			t.Errorf("TransfersHere ran refused sizes %+v", tc.t)
		}
	}
}
