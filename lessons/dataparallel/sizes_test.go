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

func TestStateRefused(t *testing.T) {
	def := State{Embed: 64, Layers: 2, Heads: 4, Context: 64} // notebooks/10-data-parallel.ipynb
	if err := def.Validate(); err != nil {
		t.Fatalf("the cell's default state is refused: %v", err)
	}
	if def.Model() != GPT() {
		t.Errorf("the cell's default %v is not the lesson's GPT %v", def.Model(), GPT())
	}
	tests := []struct {
		s    State
		want string
	}{
		{State{Embed: 1e9, Layers: 2, Heads: 4, Context: 64}, "width 1000000000 refused before anything is allocated"},
		{State{Embed: 64, Layers: 0, Heads: 4, Context: 64}, "0 layers refused"},
		{State{Embed: 64, Layers: 2, Heads: 5, Context: 64}, "5 heads refused"},
		{State{Embed: 64, Layers: 2, Heads: 4, Context: 1e9}, "context 1000000000 refused"},
		{State{Embed: 2048, Layers: 24, Heads: 16, Context: 64}, "parameters refused"},
	}
	for _, tc := range tests {
		err := tc.s.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.want)
		}
		if _, err := MeasureMemory(tc.s); err == nil {
			t.Errorf("MeasureMemory ran a refused state %+v", tc.s)
		}
	}
}
