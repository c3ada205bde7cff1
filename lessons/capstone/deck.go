package capstone

import "github.com/gpu-course/whygpu/pkg/teach/recall"

// Deck is the capstone's recall checks, one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "Capstone: plan a run, tune it here",
	Sections: []recall.Section{
		{ID: "plan", Title: "Plan the run", Cards: []recall.Card{
			{ID: "flops", Question: "How many FLOPs does a 125 M-parameter model trained on 10 B tokens cost, and where does the formula come from?",
				Answer: "6 × 1.25·10⁸ × 10¹⁰ = 7.5·10¹⁸ FLOPs: about 2 per parameter per token in the forward pass and 4 in the backward pass."},
			{ID: "band", Question: "Why is the GPU's time a band and this machine's a single number?",
				Answer: "This machine's rate was measured here (a median of timed steps); the GPU's comes from a model with a range of assumptions (the share of the bfloat16 peak a whole training step sustains, an MFU of 30–50%), so it is drawn as its two ends, never as a measurement."},
		}},
		{ID: "tune", Title: "Tune it here", Cards: []recall.Card{
			{ID: "knobs", Question: "Which three knobs did the sweep turn, and what does each one trade?",
				Answer: "Batch size (more samples share each step's fixed cost, until the cores are busy and memory runs out), dtype (fewer bytes per value: memory-bound operations gain anywhere, matrix products only where the hardware and the compiler run it natively) and loader workers (more batches prepared in parallel, until the loader competes with the training step for the same cores)."},
		}},
		energySection,
	},
}
