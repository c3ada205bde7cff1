// Package workloads holds the GoMLX graphs the course measures. Each one runs unchanged on every
// device (xla:cpu, xla:cuda, go), reports the FLOPs it performs and the minimum bytes it must move
// to and from device memory (formulas in each type's doc), and checks its own result against a
// float64 reference computed on the host from fresh random inputs.
//
// A Workload describes the experiment (shapes, dtype); Prepare builds it on a device and uploads
// its inputs, outside any timed region; the Instance it returns compiles once and then runs
// repeatedly, with inputs and outputs resident on the device.
//
// The graphs are grouped by family, one package each, all built on this one's Workload, Instance
// and helpers (NewExecInstance, CheckRun, RandomFloats, …):
//
//   - compute-bound (here): MatMul (f64, f32 — TF32 on CUDA unless devices.CUDANoTF32 —, bf16,
//     f16), Int8MatMul
//   - memory-bound (package membound): LayerNorm, Elementwise (y = a·x + b), Copy (the bandwidth
//     ceiling), Passes; the bus: Transfer (host→device, device→host, N bytes)
//   - launch-bound (package launch): ElementwiseChain, TiedForward (one graph vs one executable
//     per op)
//   - the GPT (package gpt) and data parallelism over several devices (package parallel)
//   - training (here): MLP (forward, loss, backward, SGD or Adam), whose Trainer keeps parameters
//     on the device and reads the loss only when asked (Loss); pkg/workloads/train runs loops over
//     it, pkg/workloads/data feeds it
//
// The rule this package and its families keep for the others: every graph lives here. A function
// that creates graph nodes — a workload's graph, a model (GPT.Logits, GPT.NextToken), a training
// step (the MLP's, GradModel.SGDStep and ScaledGradients, DataParallel's single-device and SPMD
// steps), the one hand-written Adam update — is written in this package or a family's next to its
// FLOP and byte formulas; pkg/workloads/train compiles, runs and times them (and lets GoMLX's
// trainer add the gradient and its Adam to the GPT's model). Data parallelism stays under
// pkg/workloads (package parallel) for the same reason: its SPMD step and all-reduce are graphs,
// and this is where the course's SPMD code lives (pkg/hw/devices only opens the CPU plugin as
// several devices, devices.CPUSplit).
//
// Bad input — invalid shapes, a dtype a backend lacks, a workload larger than memory — comes back
// as an error value (ErrOutOfMemory for the last), never a crash.
package workloads
