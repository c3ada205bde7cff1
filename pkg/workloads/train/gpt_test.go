package train

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/corpus"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// TestGPTTrainsAndSamples trains a tiny GPT on the corpus for a few steps on xla:cpu: the loss falls,
// the parameters GoMLX created are the ones NumParams counts, and bad prompts are errors.
func TestGPTTrainsAndSamples(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	tok := corpus.NewTokenizer()
	ids, err := tok.Encode(corpus.Text())
	if err != nil {
		t.Fatal(err)
	}
	c := gpt.GPT{Vocab: tok.Size(), Context: 32, Batch: 8, Embed: 32, Layers: 1, Heads: 2, Seed: 1}
	tr, err := NewGPTTrainer(dev, c)
	if err != nil {
		t.Fatal(err)
	}
	batches, err := data.NewTextBatches(ids, c.Batch, c.Context, 1)
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
	if _, err := tr.Greedy(long, 1); !errors.Is(err, gpt.ErrContextTooLong) || !strings.Contains(err.Error(), "32") {
		t.Errorf("too-long prompt: %v", err)
	}
}

func TestGPTTooLargeIsOutOfMemory(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	c := gpt.GPT{Vocab: 96, Context: 1 << 16, Batch: 64, Embed: 1024, Layers: 48, Heads: 16}
	if _, err := NewGPTTrainer(dev, c); !errors.Is(err, workloads.ErrOutOfMemory) {
		t.Errorf("huge GPT: %v, want ErrOutOfMemory", err)
	}
}

// TestGPTAdamStateIsTwiceTheModel reads the bytes GoMLX allocated after one step.
func TestGPTAdamStateIsTwiceTheModel(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	c := gpt.GPT{Vocab: 40, Context: 8, Batch: 2, Embed: 16, Layers: 1, Heads: 2, Seed: 1}
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
