package dataparallel

import (
	"strings"
	"testing"
)

func TestAllReduceRefused(t *testing.T) {
	if err := (AllReduce{Devices: 2, Values: []int{1 << 10, 1 << 20}}).Validate(); err != nil {
		t.Fatalf("the cell's default sweep is refused: %v", err)
	}
	tests := []struct {
		a    AllReduce
		want string
	}{
		{AllReduce{Devices: 2, Values: []int{1e9}}, "1000000000 values refused before anything is allocated"},
		{AllReduce{Devices: 2, Values: []int{0}}, "refused"},
		{AllReduce{Devices: 2}, "at least one"},
		{AllReduce{Devices: 2, Values: make([]int, 9)}, "at most 8"},
		{AllReduce{Devices: 1, Values: []int{8}}, "1 devices refused"},
		{AllReduce{Devices: 1000, Values: []int{8}}, "1000 devices refused"},
	}
	for _, tc := range tests {
		err := tc.a.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.a, err, tc.want)
		}
		if _, err := AllReduceAt(tc.a, nil); err == nil {
			t.Errorf("AllReduceAt ran a refused sweep %+v", tc.a)
		}
	}
}
