package smallgpt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

func TestContextsRefused(t *testing.T) {
	if err := (Contexts{Embed: 64, Layers: 2, Lengths: []int{32, 128}}).Validate(); err != nil {
		t.Fatalf("the cell's default sweep is refused: %v", err)
	}
	tests := []struct {
		c    Contexts
		want string
	}{
		{Contexts{Embed: 64, Layers: 2, Lengths: []int{1e9}}, "sequence length 1000000000 refused before anything is allocated"},
		{Contexts{Embed: 64, Layers: 2, Lengths: []int{1}}, "refused"},
		{Contexts{Embed: 64, Layers: 2}, "at least one"},
		{Contexts{Embed: 64, Layers: 2, Lengths: make([]int, 9)}, "at most 8"},
		{Contexts{Embed: 66, Layers: 2, Lengths: []int{32}}, "multiple of the 4 heads"},
		{Contexts{Embed: 64, Layers: 0, Lengths: []int{32}}, "0 layers"},
	}
	for _, tc := range tests {
		err := tc.c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
		if _, err := SweepContexts(tc.c, nil); err == nil {
			t.Errorf("SweepContexts ran a refused sweep %+v", tc.c)
		}
		if _, err := Sweep(tc.c, nil); err == nil {
			t.Errorf("Sweep ran a refused sweep %+v", tc.c)
		}
	}
}

// TestSweepCellDefaults: the context sweep's cell writes the laptop scale's model and lengths.
func TestSweepCellDefaults(t *testing.T) {
	c := Contexts{Embed: 64, Layers: 2, Lengths: []int{64, 256, 1024}} // notebooks/09-small-gpt.ipynb
	if err := c.Validate(); err != nil {
		t.Fatalf("the cell's sweep is refused: %v", err)
	}
	g := Config(experiments.Laptop)
	if c.Embed != g.Embed || c.Layers != g.Layers || fmt.Sprint(c.Lengths) != fmt.Sprint(SweepLengths(experiments.Laptop)) {
		t.Errorf("the cell's sweep %+v is not the laptop scale's (%v, lengths %v)", c, g, SweepLengths(experiments.Laptop))
	}
}
