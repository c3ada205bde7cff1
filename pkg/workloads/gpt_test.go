package workloads

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/corpus"
	"github.com/gpu-course/whygpu/pkg/devices"
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

// TestGPTTrainsAndSamples trains a tiny GPT on the corpus for a few steps on xla:cpu: the loss falls,
// the parameters GoMLX created are the ones NumParams counts, and bad prompts are errors.
func TestGPTTrainsAndSamples(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	tok := corpus.NewTokenizer()
	ids, err := tok.Encode(corpus.Text())
	if err != nil {
		t.Fatal(err)
	}
	c := GPT{Vocab: tok.Size(), Context: 32, Batch: 8, Embed: 32, Layers: 1, Heads: 2, Seed: 1}
	tr, err := NewGPTTrainer(dev, c)
	if err != nil {
		t.Fatal(err)
	}
	batches, err := NewTextBatches(ids, c, 1)
	if err != nil {
		t.Fatal(err)
	}
	var first, last float64
	start := time.Now()
	for i := range 60 {
		in, tg := batches.Next()
		l, err := tr.Step(in, tg)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = l
		}
		last = l
	}
	t.Logf("%s: loss %.3f → %.3f in 60 steps, %v (compile %v)", c, first, last, time.Since(start), tr.Compile)
	if !(last < first-0.5) {
		t.Errorf("loss did not fall: %.3f → %.3f", first, last)
	}
	if math.Abs(first-math.Log(float64(c.Vocab))) > 2.0 {
		t.Errorf("first loss %.3f, expected about ln(V) = %.3f", first, math.Log(float64(c.Vocab)))
	}
	if got, want := tr.StoredParams(), c.NumParams(); got != want {
		t.Errorf("GoMLX created %d parameters, NumParams says %d", got, want)
	}
	prompt, _ := tok.Encode("The GPU ")
	out, err := tr.Greedy(prompt, 20)
	if err != nil || len(out) != 20 {
		t.Fatalf("Greedy: %v (%d tokens)", err, len(out))
	}
	t.Logf("sample: %q", tok.Decode(out))
	long := make([]int32, c.Context+1)
	if _, err := tr.Greedy(long, 1); !errors.Is(err, ErrContextTooLong) || !strings.Contains(err.Error(), "32") {
		t.Errorf("too-long prompt: %v", err)
	}
}

func TestGPTTooLargeIsOutOfMemory(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	c := GPT{Vocab: 96, Context: 1 << 16, Batch: 64, Embed: 1024, Layers: 48, Heads: 16}
	if _, err := NewGPTTrainer(dev, c); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("huge GPT: %v, want ErrOutOfMemory", err)
	}
}

// TestGPTAdamStateIsTwiceTheModel reads the bytes GoMLX allocated after one step.
func TestGPTAdamStateIsTwiceTheModel(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	c := GPT{Vocab: 40, Context: 8, Batch: 2, Embed: 16, Layers: 1, Heads: 2, Seed: 1}
	tr, err := NewGPTTrainer(dev, c)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int32, c.Tokens())
	if _, err := tr.Step(ids, ids); err != nil {
		t.Fatal(err)
	}
	p, o := tr.StateBytes()
	if p != 4*c.NumParams() {
		t.Errorf("parameters %d bytes, want %d", p, 4*c.NumParams())
	}
	if r := float64(o) / float64(p); r < 2 || r > 2.01 {
		t.Errorf("optimizer state %d bytes = %.3f× the parameters", o, r)
	}
}
