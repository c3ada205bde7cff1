package gpt

import (
	"math"
	"testing"
)

// TestGPTFLOPsAgainstShapes checks the closed form 6·N·T + 12·L·s·d·T against the sum of the forward
// pass's matrix products listed one by one with their shapes (× 3 for forward and backward).
func TestGPTFLOPsAgainstShapes(t *testing.T) {
	tests := []GPT{
		{Vocab: 96, Context: 64, Batch: 16, Embed: 64, Layers: 2, Heads: 4},
		{Vocab: 50, Context: 1024, Batch: 1, Embed: 128, Layers: 3, Heads: 8, FFN: 300},
		{Vocab: 2, Context: 2, Batch: 3, Embed: 6, Layers: 1, Heads: 2},
	}
	for _, c := range tests {
		var fwd float64
		for _, m := range c.ForwardMatMuls() {
			fwd += m.FLOPs()
		}
		if got, want := c.FLOPs(), 3*fwd; math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: FLOPs %g, shapes say %g", c, got, want)
		}
		perToken := 12 * float64(c.Layers*c.Context*c.Embed)
		if got := c.AttentionFLOPs() / float64(c.Tokens()); got != perToken {
			t.Errorf("%s: attention FLOPs per token %g, want 12·L·s·d = %g", c, got, perToken)
		}
	}
}

func TestGPTAttentionShareGrowsWithContext(t *testing.T) {
	prev := 0.0
	for _, s := range []int{64, 128, 256, 512, 1024} {
		c := GPT{Vocab: 96, Context: s, Batch: 1, Embed: 64, Layers: 2, Heads: 4}
		if sh := c.AttentionShare(); sh <= prev || sh >= 1 {
			t.Errorf("s=%d: attention share %.3f after %.3f", s, sh, prev)
		} else {
			prev = sh
		}
	}
}

func TestGPTValidate(t *testing.T) {
	bad := []GPT{
		{Vocab: 96, Context: 64, Batch: 1, Embed: 60, Layers: 1, Heads: 8},
		{Vocab: 96, Context: 1, Batch: 1, Embed: 64, Layers: 1, Heads: 4},
		{},
	}
	for _, c := range bad {
		if c.Validate() == nil {
			t.Errorf("%s: no error", c)
		}
	}
}
