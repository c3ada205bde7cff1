package capstone

import "github.com/gpu-course/whygpu/pkg/teach/recall"

// The recall cards of the section "Energy and dollars", the notebook's last before the recap:
// listed last in Deck so the deck's order stays the notebook's.
var energySection = recall.Section{ID: "energy", Title: "Energy and dollars", Cards: []recall.Card{
	{ID: "formula", Question: "How do you estimate the energy per training FLOP of a chip, and the energy of a run?",
		Answer: "Power over the rate a whole step sustains: watts ÷ (FLOP/s) = joules per FLOP. The run's energy is that times 6·N·T FLOPs — with the TDP as the power, an estimate for the chip alone, not the host, network or cooling."},
	{ID: "why", Question: "Why does a GPU use far less energy per training FLOP than a CPU, although it draws more watts?",
		Answer: "Its tensor cores sustain hundreds of TFLOP/s for ~700 W, while a CPU socket sustains a few TFLOP/s for a few hundred watts: the rate grows far more than the power, so the joules per FLOP fall by one to two orders of magnitude."},
	{ID: "dollars", Question: "A run needs 1,000 GPU-hours. What does it cost on 8 GPUs instead of 1, at $3 per GPU-hour, and what would halve it?",
		Answer: "The same $3,000 if the run scales: 8 GPUs for 125 hours each is still 1,000 GPU-hours. Doubling the MFU (or a GPU with twice the sustained rate at the same price) halves the GPU-hours, and so the dollars and the energy."},
}}
