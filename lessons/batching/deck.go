package batching

import "github.com/gpu-course/whygpu/pkg/teach/recall"

// Deck is the lesson's recall checks, one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "Batch size and layer width",
	Sections: []recall.Section{
		{ID: "sweep", Title: "Sweep the batch size", Cards: []recall.Card{
			{ID: "shapes", Question: "As the batch grows from 1 to 512, how do the CPU's and the GPU's time per step change, and what happens to samples per second?",
				Answer: "The CPU's time grows roughly in proportion to the batch once its cores are busy, so its samples/s levels off. The GPU's time stays nearly flat, so its samples/s grows almost in proportion to the batch."},
			{ID: "crossover", Question: "What is the crossover batch, and how does widening the layer move it?",
				Answer: "The batch above which the GPU's step is faster. A wider layer gives each sample more work, so the GPU fills sooner and the crossover moves to a smaller batch — for a wide enough layer the GPU wins even at batch 1."},
		}},
		{ID: "occupancy", Title: "Why the GPU's time stays flat", Cards: []recall.Card{
			{ID: "latency-bound", Question: "What does it mean that a GPU is overhead-bound at small batches?",
				Answer: "Neither of its budgets, FLOPs ÷ peak nor bytes ÷ HBM bandwidth, explains its time per step: fixed costs do — a fixed cost per kernel and per execution, and the step's chain of kernels (a real layer whose weights dominate the bytes would be memory-bandwidth-bound instead, lesson 02). On top, a small product makes a few output tiles for 132 SMs, so most SMs have no work (SM fill, or wave quantization — not CUDA's occupancy, which counts resident warps per SM). Until there are enough tiles in flight, adding samples adds almost no time."},
			{ID: "lanes", Question: "How does a GPU hand out a matrix product's outputs, and how many does a layer need to give every SM of an H200 work? What does batching buy a CPU?",
				Answer: "In output tiles of about 128×128, one per SM at a time: 132 tiles fill an H200's 132 SMs, so a 64-wide layer (one tile per 128 rows) needs about 132 × 128 ≈ 17,000 rows. A CPU gains from batching too: the batch shares each call's fixed cost, and each weight it reads, among its samples (your sweep in this lesson: set the largest batch's multiple of the work against its multiple of the time), but its few cores fill up early and then its time grows with the work."},
		}},
		{ID: "utilization", Title: "Watch the cores", Cards: []recall.Card{
			{ID: "timeline", Question: "What did the CPU utilization timeline show at batch 1 versus a large batch?",
				Answer: "At batch 1 the step's work is too small to split, so one to one and a half cores do it (plus dispatch overhead); at a large batch XLA's matrix products use every core. The samples/s differ by far more than the utilization does."},
			{ID: "nvml", Question: "Why can a GPU's utilization (nvidia-smi, NVML) read high while the GPU is mostly idle?",
				Answer: "NVML's utilization is the share of time any kernel was running, not the share of lanes busy: a stream of tiny batch-1 kernels reads as busy while using a few percent of the chip."},
		}},
		{ID: "width", Title: "Widen the layer", Cards: []recall.Card{
			{ID: "wider", Question: "Why do wider layers use a device better than narrow ones?",
				Answer: "Work per step grows with the square of the width (the hidden × hidden matrix) while the fixed costs do not, so more of the time goes to arithmetic and achieved FLOP/s rises — most of all on the GPU, which has the most idle SMs to fill."},
		}},
		{ID: "pitfalls", Title: "What trips people up", Cards: []recall.Card{
			{ID: "low-util", Question: "What is the most common reason a GPU shows low utilization in training, and the first thing to try?",
				Answer: "A batch too small to occupy the device. If memory allows, raise the batch (and retune the learning rate) before blaming the hardware."},
			{ID: "small-nets", Question: "Why is a GPU often no faster — or slower — for a small network?",
				Answer: "There is not enough parallel work per step to amortize the fixed costs of launching kernels and moving data; the CPU's fast cores finish the little arithmetic first."},
		}},
	},
}
