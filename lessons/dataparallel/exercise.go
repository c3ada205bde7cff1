package dataparallel

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// Hide is the data-parallel job of lesson 10's problem: a model of Params parameters whose bf16
// gradients are all-reduced in a ring over GPUs, each GPU computing Sequences × Tokens per step at
// MFU of its bf16 peak.
type Hide struct {
	Params               float64
	GPUs                 int
	Sequences, Tokens    int     // per GPU and step
	MFU                  float64 // share of the bf16 peak the backward pass sustains
	GPU                  datasheet.GPU
	LinkBytesPerS        float64 // per GPU, each way
	LinkName             string
	GradientBytesPerElem float64
}

// HideJob is the problem's job: 7B parameters, bf16 gradients (14 GB), 8 H100s over NVLink,
// 16 sequences of 2,048 tokens per GPU, the backward pass at 40% of the bf16 peak.
var HideJob = Hide{Params: 7e9, GPUs: 8, Sequences: 16, Tokens: 2048, MFU: 0.4, GPU: datasheet.H100,
	LinkBytesPerS: datasheet.H100.NVLinkBytes, LinkName: datasheet.H100.NVLink, GradientBytesPerElem: 2}

// Parts are the problem's numbers: the gradient's bytes, the bytes each GPU sends in the ring, the
// all-reduce's time at the link's full rate, the backward pass's FLOPs and time (seconds).
func (h Hide) Parts() (grad, sent, allReduce, backwardFLOPs, backward float64) {
	grad = h.Params * h.GradientBytesPerElem
	l := gpumodel.Link{BytesPerS: h.LinkBytesPerS, Efficiency: gpumodel.Range{Low: 1, High: 1}}
	lo, _ := l.RingAllReduce(grad, h.GPUs)
	allReduce = lo.Seconds()
	sent = allReduce * h.LinkBytesPerS
	backwardFLOPs = 4 * h.Params * float64(h.Sequences*h.Tokens)
	rate := h.MFU * h.GPU.Ceilings.Peak("bfloat16")
	backward = backwardFLOPs / rate
	return
}

// ProblemHide is lesson 10's applied problem: does 8×H100 data parallelism hide a 7B model's 14 GB
// gradient all-reduce behind the backward pass? Answered as the all-reduce's share of it.
var ProblemHide = exercise.Register(exercise.Problem{
	Key: "10/hide-allreduce-8xh100",
	Question: fmt.Sprintf("Eight %s GPUs in one node train a %.0f-billion-parameter model with data parallelism. Every step, the bf16 gradients (%.0f GB) are all-reduced in a ring over %s (%.0f GB/s each way per GPU, datasheet). "+
		"Each GPU's share of a step is %d sequences of %d tokens, and its backward pass runs at %.0f%% of the %s's %.0f TFLOP/s bf16 peak. "+
		"What percentage of the backward pass's time does the all-reduce take, at the link's full rate?",
		HideJob.GPU.Short, HideJob.Params/1e9, HideJob.Params*HideJob.GradientBytesPerElem/1e9, HideJob.LinkName, HideJob.LinkBytesPerS/1e9,
		HideJob.Sequences, HideJob.Tokens, 100*HideJob.MFU, HideJob.GPU.Short, HideJob.GPU.Ceilings.Peak("bfloat16")/1e12),
	Unit:      "%",
	Tolerance: 0.1,
	Formula:   "2·(n−1)/n",
	Hint:      "In a ring, each GPU does not send the gradient once: count what it sends in the reduce-scatter and the all-gather. Then count the backward pass's FLOPs for one GPU's tokens (lesson 08: the backward pass is two thirds of 6·N per token).",
	Solve: func() (exercise.Solution, error) {
		h := HideJob
		grad, sent, ar, bf, bw := h.Parts()
		n := h.GPUs
		net := gpumodel.Link{BytesPerS: gpumodel.Net100G.BytesPerS, Efficiency: gpumodel.Range{Low: 1, High: 1}}
		slow, _ := net.RingAllReduce(grad, n)
		return exercise.Solution{Value: 100 * ar / bw, Steps: []string{
			fmt.Sprintf("gradient: %.0f × 10⁹ × %.0f B = %.0f GB", h.Params/1e9, h.GradientBytesPerElem, grad/1e9),
			fmt.Sprintf("ring: a reduce-scatter then an all-gather, %d steps each, each sending 1/%d of the gradient: 2 × %d/%d × %.0f GB = %.1f GB sent per GPU", n-1, n, n-1, n, grad/1e9, sent/1e9),
			fmt.Sprintf("all-reduce: %.1f GB ÷ %.0f GB/s = %.0f ms", sent/1e9, h.LinkBytesPerS/1e9, 1e3*ar),
			fmt.Sprintf("backward FLOPs per GPU: 4 × %.0f × 10⁹ × (%d × %d tokens) = %.3g", h.Params/1e9, h.Sequences, h.Tokens, bf),
			fmt.Sprintf("backward time: %.3g ÷ (%.0f%% × %.0f TFLOP/s) = %.2f s", bf, 100*h.MFU, h.GPU.Ceilings.Peak("bfloat16")/1e12, bw),
			fmt.Sprintf("share: %.0f ms ÷ %.2f s = %.1f%% — it hides easily when overlapped with the backward pass (DDP's buckets do that); over a %s port it would take %.1f s, %.0f%% of it", 1e3*ar, bw, 100*ar/bw, gpumodel.Net100G.Name, slow.Seconds(), 100*slow.Seconds()/bw),
		}}, nil
	},
})
