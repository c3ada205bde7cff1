// Package gpumodel is the course's one model of a GPU that is not here: how long some work would take
// on an NVIDIA H200 (or H100, where the source text quotes one), as a BAND from an optimistic to a
// pessimistic end, with the assumptions that produced it. No other package or lesson computes GPU time.
//
// The model works kernel by kernel (Model.Estimate). A step's kernels are read from the optimized
// HLO of the step as XLA compiled it for xla:cpu (hlo.CompiledKernels, through StepWork
// and GPTStepWork): each kernel's FLOPs, its bytes (operands read + results written, from the HLO
// shapes) and its matrix products. That the GPU would run the same sequence is an assumption, said
// on every use (SequenceAssumption): XLA's GPU compiler fuses differently. For each kernel:
//
//   - Compute. Each matrix product (GEMM) is cut into 128×128 output tiles (narrower, down to 64, for
//     a skinny product), one tile per SM at a time, so it runs in waves of 132 tiles (on 132 SMs): a
//     product with 8 output tiles leaves 124 SMs idle for its whole duration (SM fill / wave
//     quantization), unless the library splits the inner dimension K across idle SMs (split-K,
//     modeled up to one piece per 256 of K). A tile's inner loop over K runs at a fraction of the SM's
//     peak that grows with K, K/(K+K₀) (filling and draining the tile's pipeline costs about K₀ = 64
//     steps of K), times the fraction of peak a large, well-shaped GEMM reaches. Other arithmetic runs
//     on the CUDA cores (the FP32 peak) at the same fraction.
//   - Memory. Its bytes at a fraction of the HBM bandwidth.
//   - Its time is its own roofline, max(compute, memory), and at least the floor, the least time a
//     kernel occupies the GPU (at the pessimistic end the floor is added).
//
// The kernels then run one after another on one stream: the host issues a launch every issue
// seconds, ahead of the GPU, and a kernel starts once it is issued and the one before it has ended.
// A step costs about Σᵢ max(Cᵢ, Mᵢ) plus the floor and launch terms — a memory-bound kernel
// (softmax, layer norm, the optimizer update) cannot hide under a GEMM — plus a fixed cost per
// execution (enqueue the program, wait for its completion event).
//
// The launch ranges come from published measurements (LaunchSource): CUDA.jl's documentation ("Graphs",
// https://cuda.juliagpu.org/dev/usage/graphs/) times 80 tiny broadcast kernels (ten RK4 steps) at
// about 260 µs launched one by one on a stream, ≈3.3 µs per kernel, and about 70 µs launched as one
// CUDA graph, ≈0.9 µs per kernel with 3.5 µs of CPU time in all. The issue range (1–4 µs per kernel)
// and the floor (1–3 µs) run from about the graph's end (XLA's command buffers capture kernels in
// CUDA graphs) to a little past kernels issued one at a time. Eager frameworks pay more: the documentation of Holistic Trace Analysis
// (its page on CUDA kernel launch stats, https://github.com/facebookresearch/HolisticTraceAnalysis/blob/main/docs/source/features/cuda_kernel_launch_stats.rst)
// reports 5–20 µs of CPU time per launch in PyTorch traces. XLA issues a compiled program's kernels
// without per-operation framework dispatch, so the model stays below that range; a recording on a
// GPU (Against) says whether it should not. The CUDA Programming Guide (section 4.2, "CUDA Graphs",
// https://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/cuda-graphs.html) explains
// why: every kernel put on a stream pays the driver's set-up, a graph pays it once. The source text
// of this course says "a few microseconds" per launch.
//
// Every number the model prints carries its label ("H200 SXM model", "not a measurement") and its
// assumptions (Estimate.Assumptions, Estimate.Note); lessontest-style checks elsewhere verify that.
package gpumodel
