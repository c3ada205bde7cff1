package bigpicture

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

// Deck is the lesson's recall checks: one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "The whole picture",
	Sections: []recall.Section{
		{ID: "estimate", Title: "The 6·N·T estimate", Cards: []recall.Card{
			{ID: "six", Question: "Where do the 6 in 6·N·T come from, and what does the source's run (350M parameters, 100B tokens, 1M tokens per step) cost per step?",
				Answer: "2·N·T for the forward pass (one multiply-add per parameter per token) plus about 4·N·T for the backward pass (gradients w.r.t. activations and weights). Per step: 6 × 3.5e8 × 1e6 = 2.1e15 FLOPs, for 100,000 steps."},
		}},
		{ID: "rates", Title: "Fed with real rates", Cards: []recall.Card{
			{ID: "ratio", Question: "At the source's rates, how long does the run take on the CPU socket and on one H100, and why is the real gap larger?",
				Answer: ratesAnswer()},
			{ID: "mfu", Question: "What is MFU and why is a real training step below the matmul ceiling?",
				Answer: "Model FLOPs utilization: the useful FLOPs (6·N per token) per second over the peak. A step also runs memory-bound work — activations, the loss, the optimizer update — and launches and syncs, so it gets less than a large matmul alone. Training a large model is compute-bound: MFU is the number to raise."},
		}},
		{ID: "serving", Title: "Serving: one token at a time", Cards: []recall.Card{
			{ID: "decode", Question: "Why is batch-1 decoding of a 7B model memory-bandwidth-bound on an H200, and about how long is a token?",
				Answer: "Every weight (14 GB in bf16) is read once per token for one multiply-add each: 14 GB ÷ 4.8 TB/s ≈ 2.9 ms of memory traffic against 1.4·10¹⁰ FLOPs ÷ 989 TFLOP/s ≈ 0.014 ms of math. The bytes budget is ~200× the FLOPs budget; batching users reads the weights once for all."},
			{ID: "toy", Question: "A toy MLP answers one request on a GPU. Which regime, and why can a CPU compete?",
				Answer: "Overhead-bound: its bytes and FLOPs take well under a microsecond on the GPU, so the time is launches and synchronization (microseconds). A CPU next to the data pays similar fixed costs and no bus copy."},
		}},
		{ID: "cpu", Title: "Where the CPU is the right choice", Cards: []recall.Card{
			{ID: "list", Question: "Name four jobs where a CPU is the right (or good enough) choice, and what they share.",
				Answer: "Tiny models and batch-1 requests to them; gradient-boosted trees and other tabular ML; huge sparse embedding tables kept in host memory; data preparation and debugging or deterministic reference runs. Little arithmetic for a matrix unit: branches, scattered loads, fixed costs."},
			{ID: "embeddings", Question: "A recommender's table has 10⁹ rows of 128 float32 values. Does it fit an H200, and what bounds its lookups?",
				Answer: "512 GB (477 GiB) against 141 GB: no, it stays in host memory. A lookup copies a 512-byte row and pools it with about one add per value: far below any ridge, so bandwidth-bound; gather on the CPU and ship only the gathered rows to the GPU."},
		}},
		{ID: "scaling", Title: "Past one device", Cards: []recall.Card{
			{ID: "clusters", Question: "Why do CPU clusters scale poorly for training, next to GPUs in one node?",
				Answer: "Every step moves the whole gradient between the devices. Matching one H100 takes dozens of CPU sockets, and over a 100 Gb/s network their exchange grows to a large share of every step, while GPUs on NVLink spend a small share of it syncing. Saturate one GPU first (lesson 10 measures the exchange)."},
		}},
		{ID: "faq", Title: "Choosing, and the FAQ", Cards: []recall.Card{
			{ID: "util", Question: "Your GPU sits at 30% utilization. What does the source say to check first?",
				Answer: "The input pipeline, almost always: raise num_workers, pre-resize or pre-tokenize data, and look for .item()/.cpu() calls in the loop. Then check whether the batch is too small to fill the device."},
			{ID: "costs", Question: "Which costs should decide CPU vs GPU for a workload?",
				Answer: "Hardware or rental price, energy per useful FLOP, the utilization you can actually sustain, and the engineering effort of each software stack."},
		}},
	},
}

// ratesAnswer is the "rates" card's answer, computed from SourceRates as the lesson's table is, so the
// card and the table print the same numbers.
func ratesAnswer() string {
	r := SourceRates()
	cpu, gpu := r[0], r[1]
	return fmt.Sprintf("About %.0f s per step (≈ %.0f days) on the %s, about %.2g s per step (≈ %.0f days) on %s: ≈ %.0f×. "+
		"The GPU run also splits over eight GPUs with fast links, while CPU sockets hit network bandwidth first.",
		cpu.SecondsPerStep(SourceRun), cpu.Days(SourceRun), cpu.Name, gpu.SecondsPerStep(SourceRun), gpu.Days(SourceRun), gpu.Name, gpu.FLOPS/cpu.FLOPS)
}
