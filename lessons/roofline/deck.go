package roofline

import "github.com/gpu-course/whygpu/pkg/teach/recall"

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
				Answer: "At peak FLOP/s ÷ memory bandwidth (FLOP/byte). An operation with higher intensity is compute-bound (limited by the FLOP/s roof); one with lower intensity is memory-bandwidth-bound (limited by bandwidth × intensity)."},
			{ID: "gaps", Question: "Between the source's H100 and its 64-core CPU, why is the gap ~97× for a big GEMM but only ~7× for a layernorm?",
				Answer: "The GEMM is compute-bound on both, so the gap is the ratio of compute roofs (989 TFLOP/s dense bf16 vs ~10.2 TFLOP/s f32); the layernorm is memory-bound on both, so the gap is the ratio of bandwidths (3.35 TB/s vs ~461 GB/s)."},
		}},
		{ID: "measured", Title: "Your own roofline", Cards: []recall.Card{
			{ID: "limit", Question: "What sets the speed limit of training, and what sets how close you get to it?",
				Answer: "The GEMMs (compute-bound, far above the ridge) set the speed limit; the memory-bound operations around them (normalization, activations, residual adds, the optimizer update) decide how much time is lost at a small fraction of peak FLOP/s."},
			{ID: "small", Question: "Why does a small matmul land far below the compute roof even though matmuls are 'compute-bound'?",
				Answer: "Its intensity is 2n³ FLOPs ÷ 3n² elements = 2n/(3 × element size) FLOP/byte (n/6 in float32), lower for small n, and fixed per-call costs (launch, threading, cache effects) are not amortized over enough FLOPs: it falls short of both roofs."},
		}},
		{ID: "ridge-batch", Title: "Batch size moves a matmul along the roofline", Cards: []recall.Card{
			{ID: "reuse", Question: "Why does a B×D by D×D matmul's intensity grow almost in proportion to B while B is much smaller than D?",
				Answer: "Its FLOPs grow with B but its bytes are mostly the D×D weights, read once whatever B is: each weight fetched serves one multiply-add per row, so the batch is the reuse (about 2·B / element size FLOP/byte)."},
			{ID: "ridge-batch", Question: "What is a layer's ridge batch, and roughly where is it for bf16 on an H200?",
				Answer: "The batch at which the layer's matmul reaches the device's ridge point and stops being memory-bandwidth-bound. The H200's datasheet bf16 ridge is 989 TFLOP/s ÷ 4.8 TB/s ≈ 206 FLOP/byte; with 2-byte elements that is roughly 200–350 rows depending on D (a model from datasheet numbers). Not McCandlish et al.'s critical batch size, which is about optimization."},
			{ID: "flat", Question: "A layer's time stays flat when you double a small batch. Which regime is that, and why not overhead?",
				Answer: "Memory-bandwidth-bound: the doubled batch doubles the FLOPs but reads the same weights, and the weight bytes ÷ bandwidth explain the time. Overhead-bound would mean neither the FLOP budget nor the byte budget explains it. Batch-1 decoding of a real model is the same case: a 7B model in bf16 reads 14 GB per token, ≈ 3 ms at 4.8 TB/s."},
		}},
		{ID: "hierarchy", Title: "The memory hierarchy", Cards: []recall.Card{
			{ID: "plateaus", Question: "Why does the bandwidth of the same copy change with the size of the array?",
				Answer: "Each pass re-reads the same array. If it fits in a cache (L1, L2, L3 on a CPU; L2 on a GPU), the passes are served from that cache, which is faster the smaller and closer to the cores it is; past the last cache every pass goes to DRAM (or HBM). Each level is a plateau on the chart."},
			{ID: "roofs", Question: "How does the memory level change the roofline?",
				Answer: "Each level has its own bandwidth roof under the same compute roof. The faster the level, the further left the ridge: an operation whose data stays in L1 needs less intensity to be compute-bound than one streaming from DRAM. Tiling a matmul is keeping its working set in the fast levels."},
			{ID: "fma", Question: "Why did the measured multiply-add rate fall far below the model peak, and which measurement is closer?",
				Answer: "A chain of dependent FMAs waits on each result's latency instead of issuing every cycle, and each of a loop's short passes pays a fixed cost. The large matmul, which interleaves many independent accumulations, comes much closer to the peak — or past the model, whose clock × SIMD lanes × FMA units × cores is an estimate (the clock the OS reports may be below the turbo the cores run at, or above a sustained vector clock); where the matmul beat it, the model was raised to the measured rate."},
		}},
		{ID: "beyond", Title: "Why the gap is more than FLOPs", Cards: []recall.Card{
			{ID: "four", Question: "Name four things besides raw FLOPs that widen the GPU's practical lead in training.",
				Answer: "Low-precision matrix units (tensor cores, with f32 accumulation and master weights), HBM bandwidth next to the die, fast GPU-to-GPU interconnect for gradient exchange, and a decade of tuned software (cuBLAS, cuDNN, fused kernels, NCCL, compilers)."},
			{ID: "sync", Question: "What two details make or break a GPU benchmark like the source's?",
				Answer: "Warm-up runs before timing (one-time costs: compilation, allocation, kernel selection), and waiting for the device to finish before stopping the clock (torch.cuda.synchronize(); here measure.Run only returns when the device is done)."},
		}},
	},
}
