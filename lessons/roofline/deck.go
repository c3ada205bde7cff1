package roofline

import "github.com/gpu-course/whygpu/pkg/recall"

// Deck is the lesson's recall checks, one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "Arithmetic intensity and the roofline",
	Sections: []recall.Section{
		{ID: "intensity", Title: "Arithmetic intensity", Cards: []recall.Card{
			{ID: "define", Question: "What is arithmetic intensity, and what is it for an M×K by K×N matmul?",
				Answer: "FLOPs performed per byte moved to or from main memory. A matmul does 2·M·N·K FLOPs and must at least read both inputs and write the output, (M·K + K·N + M·N) × element size bytes: for 4096² in a 2-byte type that is 4096/3 ≈ 1,365 FLOP/byte."},
			{ID: "layernorm", Question: "Why is a layernorm's intensity about 1 FLOP/byte whatever its size, while a square matmul's grows with n?",
				Answer: "A layernorm does a fixed handful of operations per element it reads and writes, so FLOPs and bytes grow together. A matmul reuses every input element n times: FLOPs grow as n³, bytes as n², so the ratio grows as n."},
		}},
		{ID: "ridge", Title: "The ridge point", Cards: []recall.Card{
			{ID: "where", Question: "Where is a device's ridge point, and what does it decide?",
				Answer: "At peak FLOP/s ÷ memory bandwidth (FLOP/byte). An operation with higher intensity is compute-bound (limited by the FLOP/s roof); one with lower intensity is memory-bound (limited by bandwidth × intensity)."},
			{ID: "gaps", Question: "Between the source's H100 and its 64-core CPU, why is the gap ~97× for a big GEMM but only ~7× for a layernorm?",
				Answer: "The GEMM is compute-bound on both, so the gap is the ratio of compute roofs (989 TFLOP/s dense bf16 vs ~10.2 TFLOP/s f32); the layernorm is memory-bound on both, so the gap is the ratio of bandwidths (3.35 TB/s vs ~461 GB/s)."},
		}},
		{ID: "measured", Title: "Your own roofline", Cards: []recall.Card{
			{ID: "limit", Question: "What sets the speed limit of training, and what sets how close you get to it?",
				Answer: "The GEMMs (compute-bound, far above the ridge) set the speed limit; the memory-bound operations around them (normalization, activations, residual adds, the optimizer update) decide how much time is lost at a small fraction of peak FLOP/s."},
			{ID: "small", Question: "Why does a small matmul land far below the compute roof even though matmuls are 'compute-bound'?",
				Answer: "Its intensity is n/3 × (1/element size), lower for small n, and fixed per-call costs (launch, threading, cache effects) are not amortized over enough FLOPs: it falls short of both roofs."},
		}},
		{ID: "beyond", Title: "Why the gap is more than FLOPs", Cards: []recall.Card{
			{ID: "four", Question: "Name four things besides raw FLOPs that widen the GPU's practical lead in training.",
				Answer: "Low-precision matrix units (tensor cores, with f32 accumulation and master weights), HBM bandwidth next to the die, fast GPU-to-GPU interconnect for gradient exchange, and a decade of tuned software (cuBLAS, cuDNN, fused kernels, NCCL, compilers)."},
			{ID: "sync", Question: "What two details make or break a GPU benchmark like the source's?",
				Answer: "Warm-up runs before timing (one-time costs: compilation, allocation, kernel selection), and waiting for the device to finish before stopping the clock (torch.cuda.synchronize(); here measure.Run only returns when the device is done)."},
		}},
	},
}
