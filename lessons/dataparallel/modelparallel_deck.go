package dataparallel

import (
	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

// The recall cards of the section "Splitting the model", the notebook's last before the recap:
// listed last in Deck so the deck's order stays the notebook's.
var modelSection = recall.Section{ID: "model", Title: "Splitting the model", Cards: []recall.Card{
	{ID: "tp", Question: "What does Megatron-style tensor parallelism send per layer, and how often?",
		Answer: "An all-reduce of the layer's activations, B·T·D values, after attention and after the MLP in the forward pass, and the same two in the backward pass: four per layer per step, on the critical path in the plain scheme (hiding them means splitting the matmuls so pieces compute while others' results travel)."},
	{ID: "tpratio", Question: "Why does a larger batch not hide tensor parallelism's traffic, and what keeps it inside one node?",
		Answer: "Both the traffic (∝ B·T·D) and one GPU's compute (∝ B·T·D²/t) grow with the tokens, so their ratio ∝ t/D does not depend on the batch. Only a wider layer helps; with communication already up to ~0.8 of the compute at 8 GPUs on NVLink, it would dominate over a network port ~10× slower, so tensor parallelism stays within an NVLink domain."},
	{ID: "bubble", Question: "What is the pipeline bubble, and how do you shrink it?",
		Answer: "With p stages and m micro-batches per step every stage idles (p−1)/(m+p−1) of the step, while the pipeline fills and drains. More micro-batches per step (m ≫ p) shrink it — at the cost of smaller micro-batches or more activation memory."},
}}
