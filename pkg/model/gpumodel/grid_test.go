package gpumodel

import (
	"fmt"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/corpus"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// MaxWidth is the widest band (high ÷ low) the model may show at a point the lessons show by default.
const MaxWidth = 2.5

// The grid of issue 34: every point the lessons show by default has a band at most MaxWidth wide —
// single GEMMs 256³…8192³ in float32 (CUDA cores), TF32 and bf16; chains of 1…1000 tiny kernels;
// lesson 09's GPT presets (as xla:cpu compiles them and as the recipes run them); the race's slider
// grid (batches 1…512 × hidden widths 16…2048, lesson 01 and 03).
func TestBandWidthGrid(t *testing.T) {
	m := Default()
	widest, where := 0.0, ""
	check := func(what string, e Estimate) {
		w := e.High.Seconds() / e.Low.Seconds()
		if w > widest {
			widest, where = w, what
		}
		if !(e.Low > 0) || w > MaxWidth {
			t.Errorf("%s: band %s is %.2f× wide, more than %.1f×", what, e.Band(), w, MaxWidth)
		}
	}
	for n := 256; n <= 8192; n *= 2 {
		for _, dt := range []string{"float32", "tf32", "bfloat16"} {
			g := GEMM{M: n, N: n, K: n}
			w := MatMul(n, n, n, dt, g.Bytes(elementBytes(dt)))
			w.Precision = dt
			check(fmt.Sprintf("GEMM %d³ %s", n, dt), m.Estimate(w))
		}
	}
	for _, k := range []int{1, 2, 3, 5, 10, 30, 100, 300, 1000} {
		check(fmt.Sprintf("chain of %d kernels", k), m.Estimate(chain("chain", k, 1024, 3*4*1024)))
	}
	v := corpus.NewTokenizer().Size()
	for _, c := range []gpt.GPT{
		{Vocab: v, Context: 64, Batch: 16, Embed: 64, Layers: 2, Heads: 4, Seed: 9},
		{Vocab: v, Context: 256, Batch: 64, Embed: 256, Layers: 4, Heads: 8, LR: 1e-3, Seed: 9},
	} {
		check("lesson 09 "+c.String()+" (xla:cpu kernels)", GPTStepEstimate(c))
		for _, r := range []Recipe{Float32XLA, BF16Autocast} {
			check("lesson 09 "+c.String()+" ("+r.Name+")", m.Estimate(GPTRecipeStep(c, r, 0, true)))
		}
	}
	for b := 1; b <= 512; b *= 2 {
		for h := 16; h <= 2048; h *= 2 {
			w := workloads.MLP{Batch: b, In: 784, Hidden: h, Out: 10, Depth: 2, Type: dtypes.Float32}
			check(fmt.Sprintf("race step batch %d hidden %d (formula kernels)", b, h), m.Estimate(MLPStep(w, 0, "")))
		}
	}
	for _, bh := range [][2]int{{1, 16}, {1, 2048}, {512, 16}, {512, 2048}, {32, 64}} {
		w := workloads.MLP{Batch: bh[0], In: 784, Hidden: bh[1], Out: 10, Depth: 2, Type: dtypes.Float32}
		check(fmt.Sprintf("race step batch %d hidden %d (xla:cpu kernels)", bh[0], bh[1]), StepEstimate(w))
	}
	t.Logf("widest band on the grid: %.2f× (%s)", widest, where)
}
