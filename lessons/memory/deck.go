package memory

import "github.com/gpu-course/whygpu/pkg/teach/recall"

// Deck is the lesson's recall checks: one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "Memory",
	Sections: []recall.Section{
		{ID: "ledger", Title: "Four kinds of memory", Cards: []recall.Card{
			{ID: "kinds", Question: "Which four things does a training step keep in device memory, and which of them grow with the batch?",
				Answer: "Weights, gradients, optimizer state and activations. Only the activations (and the batch itself) grow with the batch size; the other three depend on the parameter count alone."},
			{ID: "adam", Question: "How big is Adam's state compared with the model, and how many bytes per parameter does mixed-precision Adam need?",
				Answer: "Adam keeps two moments per parameter, so its state alone is twice the model size. Mixed-precision Adam needs about 16 bytes per parameter: 2 + 2 for the 16-bit weights and gradients, 4 for the float32 master weights and 4 + 4 for the two moments."},
		}},
		{ID: "batch", Title: "Memory as the batch grows", Cards: []recall.Card{
			{ID: "grows", Question: "Why does memory grow linearly with the batch, and why is the measured peak above the shapes' estimate?",
				Answer: "Every sample's layer outputs are kept for the backward pass, so activations are batch × Σ widths × bytes. The measured peak also holds the step's temporaries (gradient buffers of the backward pass, the new state written before the old is freed) and allocator overhead."},
		}},
		{ID: "compiled", Title: "Memory as XLA allocates it", Cards: []recall.Card{
			{ID: "args", Question: "What are XLA's compiled 'arguments' and 'outputs' of a training step, and why do they match the formula so closely?",
				Answer: "Arguments are the buffers passed in: parameters, optimizer state, the batch, the learning rate and step counter. Outputs are the new parameters and state plus the loss. Both follow from shapes; the outputs also count the output tuple's table of pointers, 8 bytes per output."},
			{ID: "temps", Question: "Why are XLA's temporaries not simply gradients + activations?",
				Answer: "XLA plans buffers by liveness: a gradient consumed right away by the fused optimizer update may never be a buffer of its own, and buffers whose lifetimes do not overlap share memory. At small batch the temporaries are below the formula; as activations grow with the batch they dominate."},
			{ID: "rss", Question: "Why is the process's measured memory more than XLA's plan?",
				Answer: "The process also holds the plugin's code, the compiler's working memory, host staging copies of the batch, the Go runtime, and memory the allocator keeps for reuse; aliasing is 0 because this program was compiled without donated inputs — aliasing is decided at compile time (JAX: donate_argnums) — so XLA plans the old and the new state side by side, a choice of GoMLX's step, not of how training steps work. XLA's figure is the executable's own plan, not the whole process."},
		}},
		{ID: "sizing", Title: "Sizing a transformer's step, checked against XLA", Cards: []recall.Card{
			{ID: "zero", Question: "Mixed-precision Adam on N_d data-parallel devices: what does each ZeRO stage divide by N_d, and what does it leave alone?",
				Answer: "Stage 1 divides the optimizer state (fp32 master weights and both moments, 12 of the 16 bytes per parameter), stage 2 the gradients as well, stage 3 the parameters too. None of them divides the activations: each device still holds its own micro-batch's."},
			{ID: "recompute", Question: "What do selective and full recompute drop from a layer's activations?",
				Answer: "Selective recompute drops the attention softmax's a·s² values per sequence (recomputed from Q and K), the term that grows with the square of the sequence length; full recompute keeps only each layer's input and recomputes the layer during the backward pass, for about one extra forward pass."},
			{ID: "xla", Question: "Against XLA's plan for the course's GPT, which parts of the formula match exactly and which do not?",
				Answer: "XLA's arguments are the parameters, Adam's moments and the batch to a few bytes, and its outputs the same state again (nothing is donated at compile time). Its temporaries are 1.2–2.2× the formula's gradients + activations + workspace: XLA keeps the masked scores, their exponentials and transposed copies beside the softmax output the formula counts."},
		}},
		{ID: "oom", Title: "Out of memory, caught", Cards: []recall.Card{
			{ID: "when", Question: "Why does out-of-memory usually happen when you raise the batch size rather than when you load the model?",
				Answer: "The model's weights (and even its gradients and optimizer state) are a fixed cost that fits at load time; activations scale with the batch and soon dominate — the source's ResNet-50 has about 100 MB of weights but a few GB of activations at batch 64."},
			{ID: "catch", Question: "How does a careful program handle a step that will not fit?",
				Answer: "It computes the need from shapes and compares it with the free memory before allocating, or it catches the device's out-of-memory error as a value, then lowers the batch (or checkpoints, or accumulates gradients) instead of crashing."},
		}},
		{ID: "checkpoint", Title: "Gradient checkpointing", Cards: []recall.Card{
			{ID: "trade", Question: "What does gradient checkpointing trade, and roughly at what price?",
				Answer: "It keeps only some layers' outputs in the forward pass and recomputes the rest during the backward pass: activation memory falls from L layers' worth to about 2·√L with a checkpoint every √L layers, for about one extra forward pass — roughly a third more FLOPs per step."},
		}},
		{ID: "faq", Title: "How much GPU memory?", Cards: []recall.Card{
			{ID: "vram", Question: "More VRAM or a faster GPU: which decides what, according to the source?",
				Answer: "Memory decides what you can train at all (model state plus activations at your batch); speed decides how long it takes. Memory is often the constraint you hit first."},
		}},
		updateSection,
	},
}
