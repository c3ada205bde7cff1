package race

import "github.com/gpu-course/whygpu/pkg/teach/recall"

// Deck is the lesson's recall checks, one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "Latency vs throughput, and the race",
	Sections: []recall.Section{
		{ID: "regimes", Title: "What limits the time?", Cards: []recall.Card{
			{ID: "three", Question: "Name the three regimes a training step can be in, and what limits each.",
				Answer: "Compute-bound: the arithmetic units are busy, more FLOPs take proportionally more time. Memory-bandwidth-bound: the units wait for bytes, the time follows the bytes moved. Overhead-bound: what neither counts dominates — mostly fixed costs (launches, calls, synchronization, the input pipeline), and on a CPU the first touch of fresh memory (page faults), which grows with the bytes written yet is not bandwidth."},
			{ID: "budget", Question: "How do you tell which regime a step is in?",
				Answer: "By its time budget: T_compute = FLOPs ÷ the measured compute ceiling, T_memory = bytes ÷ the measured bandwidth, both set against the measured time. The larger budget names the regime when it explains at least half the time; when neither does, what neither counts sets it — fixed costs (launches, dispatch, synchronization, the input pipeline), or on a CPU fresh memory's page faults: overhead-bound."},
			{ID: "flat", Question: "A layer's time barely moves when its batch doubles. Is it overhead-bound?",
				Answer: "Not necessarily. Below the ridge batch a layer's bytes are mostly its weights, the same at both batches, so its time stays flat because its bytes did: memory-bandwidth-bound. Only if neither T_memory nor T_compute explains the time is it overhead-bound. The live test: double the FLOPs at fixed bytes, then the bytes at fixed FLOPs, and see which moves the time."},
		}},
		{ID: "shapes", Title: "Latency machines and throughput machines", Cards: []recall.Card{
			{ID: "latency", Question: "What is a CPU built to do fast, and what is a GPU built to do fast?",
				Answer: "A CPU finishes one instruction stream as fast as possible: a few fast cores with high clocks, deep pipelines, big caches and branch prediction (latency). A GPU finishes a huge amount of identical work per second: thousands of simple, slower lanes (\"CUDA cores\", 128 to each of its SMs) running in lockstep on different data (throughput)."},
			{ID: "per-core", Question: "What is the GPU's counterpart of a CPU core, and how do the two compare? And chip for chip?",
				Answer: "An SM: it has its own instruction streams, registers and caches, like a core. One H200 SM does 128 FP32 lanes × 2 × 1.98 GHz ≈ 507 GFLOP/s, about 3× one AVX-512 core (16 lanes × 2 FMA units × 2 × 2.6 GHz ≈ 166 GFLOP/s), and far more in TF32 on its tensor cores. Chip for chip the H200 has 132 SMs: hundreds of times a laptop's f32 peak, still about 7× a 64-core server socket in f32 and about 100× in BF16 on its tensor cores."},
		}},
		{ID: "dots", Title: "Training is independent dot products", Cards: []recall.Card{
			{ID: "count", Question: "How many FLOPs does a dense layer with batch B, input width D and H outputs take forward, and with the backward pass?",
				Answer: "2·B·D·H forward (B·H dot products of length D, a multiply and an add per term); about 3× that with the backward pass, which computes two more products of the same size (gradients for the weights and for the input)."},
			{ID: "why-parallel", Question: "Why does a matrix product suit thousands of slow lanes?",
				Answer: "Every output is its own dot product: none needs another's result, so there is nothing to serialize and no branch to predict; they can all run at once."},
		}},
		{ID: "overhead", Title: "Same FLOPs, different shapes", Cards: []recall.Card{
			{ID: "two-costs", Question: "The same FLOPs as 32 768 8×8 matmuls take far longer than as one 256×256 matmul. What two costs does the FLOP count not see?",
				Answer: "The fixed cost of every call (dispatch through the runtime, a kernel launch on a GPU), and poor cache reuse: an n×n matmul does n/6 FLOPs per byte it moves (each number takes part in n multiply-adds), so small ones do little arithmetic per trip to memory."},
			{ID: "compile", Question: "Why is compilation kept out of the timed region, and when does GoMLX compile?",
				Answer: "GoMLX (XLA) compiles a graph once per input shape; that is a one-time cost, not the per-step time being compared, so measure.Run compiles first and times the runs after warm-up."},
		}},
		{ID: "race", Title: "The race", Cards: []recall.Card{
			{ID: "batch-one", Question: "At batch 1 with a narrow layer, why can the CPU keep up with or beat the GPU?",
				Answer: "The step is a chain of tiny kernels: the GPU's time is launch and synchronization cost with almost all of its SMs idle, while the CPU's fast cores finish the little arithmetic quickly. In the model the CPU's time can fall inside the GPU's band there: too close to call without a recording."},
			{ID: "lanes", Question: "Where does the GPU lane come from when there is no GPU here?",
				Answer: "From a recording of the same step on a named GPU (model, date, versions) when one exists at that size; otherwise from the course's GPU model of an H200, drawn as a band: " + GPU.Brief(ModelPrecision) + "; the kernels are as many as XLA compiles the step into (counted on xla:cpu), launched on a stream while the GPU works. Labeled as a model, never as a measurement."},
		}},
		{ID: "why", Title: "Why a GPU is faster for this job", Cards: []recall.Card{
			{ID: "when", Question: "When does a GPU win, and when is the CPU good enough?",
				Answer: "A GPU wins when the network is large and the batches are large enough to keep every SM busy. Small networks, small batches, single low-volume predictions and tabular models are often as fast or faster on the CPU."},
		}},
	},
}
