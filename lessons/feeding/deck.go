package feeding

import "github.com/gpu-course/whygpu/pkg/teach/recall"

// Deck is the lesson's recall checks: one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "Feeding the device",
	Sections: []recall.Section{
		{ID: "job", Title: "The CPU's job in a GPU node", Cards: []recall.Card{
			{ID: "list", Question: "Name five things the CPU still does when the math runs on a GPU.",
				Answer: "Read and decode the data, tokenize or augment it, collate batches, copy them to the device, launch every kernel and run the training loop, write checkpoints — and in offloading setups even run the optimizer."},
			{ID: "arith", Question: "A step takes 300 ms on the GPU and the loader needs 400 ms per batch. How busy is the GPU with one loader, and how many loaders keep it fed?",
				Answer: "One batch every 400 ms, so the GPU computes 300 of every 400 ms: 75% busy, 100 ms idle per step. ⌈400/300⌉ = 2 loaders (with cores to run them) keep it fed."},
		}},
		{ID: "workers", Title: "Starved or fed", Cards: []recall.Card{
			{ID: "symptom", Question: "What does a starved device look like on a utilization timeline, and what is the usual fix?",
				Answer: "A saw-tooth: busy during each step, idle while the loop waits for the next batch. More loader workers (cores permitting), cheaper preprocessing (pre-resized or pre-tokenized data) or prefetching ahead fix it."},
			{ID: "cores", Question: "Why did adding workers stop helping on this machine?",
				Answer: "Workers need cores: once the loaders and the training step use every core, another worker only shares them. On xla:cpu the 'device' is those same cores, so an extra worker slows the step itself (read the time per step, not the share of time a step is running). On a GPU node the device is separate, so the loader only has to keep pace with it."},
		}},
		{ID: "launch", Title: "Launch-bound tiny models", Cards: []recall.Card{
			{ID: "why", Question: "Why is a tiny model at batch 1 slow per FLOP on any device, and what reduces the cost?",
				Answer: "Each operation is microseconds or less of arithmetic, but each launch (kernel launch, executable call) has a fixed host cost, so overhead dominates. Fusing operations, CUDA graphs and compiling the whole step (XLA compiles it into one executable) cut the number of launches."},
		}},
		{ID: "steptime", Title: "Where a step's time goes", Cards: []recall.Card{
			{ID: "shares", Question: "In an MLP training step, why do the matmuls take a smaller share of the time than of the FLOPs?",
				Answer: "The matmuls do nearly all the FLOPs at high intensity, the most FLOPs per second the step reaches (at this small size still well below a large matmul's ceiling). The bias adds, activations, loss and optimizer update do few FLOPs per byte: they are memory-bound (or overhead-bound when small), so their share of the time is far above their share of the FLOPs."},
			{ID: "fusion", Question: "What does fusing 8 elementwise operations into one kernel buy, and how do you see that XLA did it?",
				Answer: "Unfused, each operation reads its input from memory and writes its output back: 8 passes over memory. Fused, one kernel reads once and writes once, about 8× less traffic and 8× fewer launches. XLA's optimized HLO (--xla_dump_to) shows one fusion instruction holding all 8 ops."},
			{ID: "budget", Question: "How do a run's two time budgets tell overhead-, memory- and compute-bound apart?",
				Answer: "Compute budget = its FLOPs ÷ the measured compute ceiling; memory budget = its bytes ÷ the measured bandwidth. The larger budget names the regime (compute- or memory-bandwidth-bound) when it explains most (at least half) of the measured time; otherwise fixed costs hold it: overhead-bound. A time that stays flat when the batch doubles is not proof of overhead: a weight-dominated matmul below its ridge batch reads the same bytes, so it stays memory-bandwidth-bound."},
		}},
		{ID: "oversubscription", Title: "Too many threads", Cards: []recall.Card{
			{ID: "what", Question: "What is thread oversubscription and what does it cost?",
				Answer: "More runnable threads than cores — e.g. loader workers each calling a library with its own thread pool (OpenCV, BLAS/OpenMP, a tokenizer), beside the main process's pool. PyTorch already gives each worker one intra-op thread. Once every core is busy, more threads add no throughput: each job takes longer, holds its memory longer and may thrash caches. Limit those libraries to one thread inside workers, or use fewer workers."},
		}},
		{ID: "knobs", Title: "The knobs, mapped", Cards: []recall.Card{
			{ID: "map", Question: "What do num_workers, prefetch_factor and pin_memory do, and what is the sizing rule?",
				Answer: "num_workers: parallel loader processes (here: goroutines); prefetch_factor: batches queued ahead per worker (here: the queue depth); pin_memory: the loader copies each batch into page-locked host memory (host to host; the loader never touches the GPU), so the training loop's copy to the GPU can be asynchronous DMA: with non_blocking=True the host does not wait for it, and overlapping it with kernels needs a second CUDA stream. Size the node's CPU cores and host memory to the input pipeline."},
		}},
	},
}
