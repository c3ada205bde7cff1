package dataparallel

import (
	"fmt"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// This file is the section "Splitting the model": tensor parallelism's activation traffic per
// layer against the layer's compute, and pipeline parallelism's bubble, as arithmetic on the GPU
// model's links and matrix rate (labeled model numbers, nothing measured).

// Layer is one transformer layer's shape as tensor parallelism sees it: Tokens (micro-batch ×
// sequence, B·T) rows of width Width, activations of 2 bytes (bf16).
type Layer struct {
	Width, Tokens, Seq int
}

// DefaultLayer is a 7 B-class layer (width 4096) on one 4096-token sequence.
var DefaultLayer = Layer{Width: 4096, Tokens: 4096, Seq: 4096}

// Validate says why a layer is refused.
func (l Layer) Validate() error {
	if l.Width < 64 || l.Width > 65536 || l.Tokens < 1 || l.Tokens > 1<<20 || l.Seq < 1 || l.Seq > l.Tokens {
		return fmt.Errorf("%s: layer %+v refused: width 64…65536, tokens 1…%d, sequence 1…tokens", Lesson, l, 1<<20)
	}
	return nil
}

// AllReduceBytes is one tensor-parallel all-reduce of the layer's activations: B·T·D values of 2
// bytes.
func (l Layer) AllReduceBytes() float64 { return 2 * float64(l.Tokens) * float64(l.Width) }

// TPAllReducesPerLayer is how many all-reduces of B·T·D activations Megatron-style tensor
// parallelism does per layer and training step: one after attention and one after the MLP in the
// forward pass (each block's second matrix is split by rows, so its partial outputs are summed), and
// the same two on the gradients in the backward pass.
const TPAllReducesPerLayer = 4

// FLOPs is one layer's training FLOPs (forward and backward, 3 × forward): the forward's matrix
// products 24·B·T·D² (attention's four D×D projections and the MLP's two D×4D matrices, 2 FLOPs a
// multiply-add) plus attention's scores and weighted sum 4·B·T·S·D.
func (l Layer) FLOPs() float64 {
	bt, d, s := float64(l.Tokens), float64(l.Width), float64(l.Seq)
	return 3 * (24*bt*d*d + 4*bt*s*d)
}

// TPRow is the tensor-parallel arithmetic of a layer over n GPUs on one link.
type TPRow struct {
	GPUs                    int
	Link                    string
	Algorithm               string  // the all-reduce NCCL picks for the size (gpumodel.Link.AllReduce)
	CommLow, CommHigh       float64 // seconds of all-reduces per layer and step (model band)
	ComputeLow, ComputeHigh float64 // seconds of one GPU's share of the layer's FLOPs (model band)
}

// TensorParallel is l's tensor-parallel arithmetic for each GPU count on NVLink and on a 400 Gb/s
// network (gpumodel's links), with the compute at the model's bf16 matrix rate.
func TensorParallel(l Layer, gpus []int) []TPRow {
	rate := gpumodel.Default().GEMMRate("bfloat16")
	var out []TPRow
	for _, link := range []gpumodel.Link{gpumodel.NVLinkH200, gpumodel.Net400G} {
		for _, n := range gpus {
			lo, hi, algo := link.AllReduce(l.AllReduceBytes(), n) // NCCL's choice by size (NVLS for large messages on NVLink), as the rule under the table says
			share := l.FLOPs() / float64(n)
			out = append(out, TPRow{GPUs: n, Link: link.Name, Algorithm: algo, CommLow: TPAllReducesPerLayer * lo.Seconds(), CommHigh: TPAllReducesPerLayer * hi.Seconds(),
				ComputeLow: share / rate.Low, ComputeHigh: share / rate.High})
		}
	}
	return out
}

// TensorParallelTable shows TensorParallel for 2, 4 and 8 GPUs: bytes per all-reduce, the
// all-reduces' time per layer, one GPU's compute per layer, and their ratio.
func TensorParallelTable(l Layer) (units.Table, error) {
	if err := l.Validate(); err != nil {
		return units.Table{}, err
	}
	m := gpumodel.Default()
	t := units.NewTable("link", "GPUs", "one all-reduce", "all-reduces per layer and step", "H200, modeled: all-reduces", "H200, modeled: compute per GPU", "communication ÷ compute")
	t.From(units.Model(m.RateNote("bfloat16") + "; all-reduces on gpumodel's links, ring or NVLS by size as NCCL chooses"))
	for _, r := range TensorParallel(l, []int{2, 4, 8}) {
		t.Add(r.Link, fmt.Sprint(r.GPUs), units.Bytes(l.AllReduceBytes()), fmt.Sprint(TPAllReducesPerLayer),
			fmt.Sprintf("%s – %s by %s (a band, not a measurement)", units.SI(r.CommLow, "s"), units.SI(r.CommHigh, "s"), r.Algorithm),
			fmt.Sprintf("%s – %s (a band, not a measurement)", units.SI(r.ComputeLow, "s"), units.SI(r.ComputeHigh, "s")),
			fmt.Sprintf("%.2g – %.2g", r.CommLow/r.ComputeHigh, r.CommHigh/r.ComputeLow))
	}
	t.Note(fmt.Sprintf("Layer: width %d, %d tokens per micro-batch (sequence %d), bf16 activations; %.3g training FLOPs per layer (3 × (24·B·T·D² + 4·B·T·S·D)).", l.Width, l.Tokens, l.Seq, l.FLOPs()))
	t.Note("Compute: " + m.RateNote("bfloat16") + ". " + gpumodel.AllReduceRule() + "\n" + linkSources())
	return t, nil
}

// Bubble is the idle share of a pipeline of p stages running m micro-batches per step with a
// GPipe or 1F1B schedule: the first stage waits p−1 micro-batch slots for the last to start, and
// the last sits idle as long at the end, out of m+p−1 slots in all — (p−1)/(m+p−1).
func Bubble(p, m int) float64 {
	if p < 1 || m < 1 {
		return 0
	}
	return float64(p-1) / float64(m+p-1)
}

// BubbleStages and BubbleMicro are the pipeline depths and micro-batch counts of the section.
var (
	BubbleStages = []int{2, 4, 8, 16}
	BubbleMicro  = []int{1, 2, 4, 8, 16, 32, 64}
)

// BubbleTable shows Bubble for every BubbleStages × BubbleMicro pair.
func BubbleTable() units.Table {
	header := []string{"stages p \\ micro-batches m"}
	for _, m := range BubbleMicro {
		header = append(header, fmt.Sprint(m))
	}
	t := units.NewTable(header...)
	t.From(units.Formula("(p−1)/(m+p−1)"))
	for _, p := range BubbleStages {
		row := []string{fmt.Sprint(p)}
		for _, m := range BubbleMicro {
			row = append(row, fmt.Sprintf("%.0f%%", 100*Bubble(p, m)))
		}
		t.Add(row...)
	}
	t.Note("The share of each step every stage sits idle, (p−1)/(m+p−1): a formula, not a measurement.")
	return t
}

// BubbleChart draws Bubble against the micro-batch count, one line per pipeline depth.
func BubbleChart() (*plot.Plot, error) {
	var ss []charts.Series
	for _, p := range BubbleStages {
		s := charts.Series{Name: fmt.Sprintf("%d stages", p), Source: charts.Model, Note: "(p−1)/(m+p−1)"}
		for _, m := range BubbleMicro {
			s.Points = append(s.Points, charts.XY{X: float64(m), Y: Bubble(p, m)})
		}
		ss = append(ss, s)
	}
	return charts.Lines(charts.Axes{Title: "pipeline bubble: idle share of a step", X: "micro-batches per step m", Y: "idle share (p−1)/(m+p−1)", LogX: true}, ss...)
}
