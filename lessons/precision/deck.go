package precision

import "github.com/gpu-course/whygpu/pkg/teach/recall"

// Deck is the lesson's recall checks, one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "Precision",
	Sections: []recall.Section{
		{ID: "throughput", Title: "Throughput per precision", Cards: []recall.Card{
			{ID: "cpu16", Question: "Why is a 16-bit matmul no faster than float32 on a CPU without a 16-bit matrix path?",
				Answer: "The arithmetic still runs at float32 speed (the values are converted to float32 and back); only the bytes halve. A compute-bound matmul gains nothing, and the conversions can make small ones slower — like the source's numpy float16, done in software, which came out slowest."},
			{ID: "gpu16", Question: "What do tensor cores change for 16-bit, by the H100 datasheet?",
				Answer: "Dense bf16/f16 matrix throughput is about 989 TFLOP/s against 67 TFLOP/s of plain float32: roughly 15× the FP32 rate; TF32 494.5 TFLOP/s, about 7.4×; FP8 1,979 TFLOP/s, about 30×."},
			{ID: "tf32", Question: "What is TF32, and where does it exist?",
				Answer: "A tensor-core format: float32's 8-bit exponent with a 10-bit mantissa, used for float32 matmuls when the framework allows it (accumulating in float32). NVIDIA GPUs since Ampere; no CPU multiplies it. XLA uses it by default; PyTorch only for cuDNN convolutions unless you call torch.set_float32_matmul_precision(\"high\")."},
		}},
		{ID: "underflow", Title: "float16 underflow", Cards: []recall.Card{
			{ID: "limit", Question: "Below what magnitude does a float16 value become zero, and what happens between that and 6.1e-5?",
				Answer: "The smallest float16 subnormal is 2⁻²⁴ ≈ 5.96e-8; values below about half of it round to 0. Between 2⁻²⁴ and 2⁻¹⁴ ≈ 6.1e-5 they are subnormals, kept with fewer and fewer significant bits."},
			{ID: "when", Question: "Why do more gradients underflow as training goes on?",
				Answer: "As the loss shrinks the residuals shrink, and every gradient is proportional to them: the whole distribution slides toward zero, past float16's range."},
		}},
		{ID: "scaling", Title: "Loss scaling, and bfloat16", Cards: []recall.Card{
			{ID: "how", Question: "How does loss scaling keep small gradients, and why divide afterwards?",
				Answer: "Multiplying the loss by S multiplies every gradient by S (backward is linear), lifting them into float16's range; dividing by S in float32 before the update restores their true size. Too large an S overflows to Inf, so GradScaler lowers S on overflow (skipping that step) and raises it again later."},
			{ID: "bf16", Question: "Why does bfloat16 need no scaler?",
				Answer: "It has float32's 8-bit exponent, so it represents values down to ~1e-38: gradients do not underflow. It pays with a 7-bit mantissa (coarser rounding)."},
		}},
		{ID: "mixed", Title: "Mixed precision", Cards: []recall.Card{
			{ID: "master", Question: "What stays in float32 in mixed-precision training, and why?",
				Answer: "The master weights, their gradients' accumulation and the optimizer update (and its state): small updates added to large weights would round away in 16 bits. The matmuls and activations run in 16 bits."},
			{ID: "claim", Question: "What does the source claim for mixed precision on a GPU, and what is the failure mode?",
				Answer: "Two to three times faster, about half the memory (activations), with no accuracy cost in practice. The failure mode: plain float32 (TF32 and mixed precision off) on tensor-core hardware forfeits most of the GPU's matrix throughput."},
		}},
		unitsSection,
	},
}
