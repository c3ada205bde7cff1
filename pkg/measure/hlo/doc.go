// Package hlo shows what XLA made of a GoMLX graph: the optimized HLO it compiled (read from
// XLA's own dump), how many kernels one execution launches and how many operations were fused into
// them, and the memory XLA planned for the executable (arguments, outputs, aliased bytes,
// temporaries), from PJRT's compiled-memory statistics. CompiledKernels keeps the kernels of a
// program compiled once per shape on xla:cpu (in the process and on disk), for the GPU model
// (package gpumodel converts them into its own kernels: this package knows nothing of the model).
//
// XLA reads its flags (XLA_FLAGS) once per process, when the first backend opens. Importing this
// package adds, before main runs,
//
//	--xla_dump_to=<temp dir>/whygpu-xla-<pid> --xla_dump_hlo_module_re=^whygpu_dump_
//
// so XLA dumps only the executables named with [DumpName] (through [Dumped]); every other compile
// is untouched. Inspect then reads the dump of that executable and removes it. The flags are this
// process's alone: [AddedFlags] says what was added, and a program that starts another — the
// bench's JAX worker, a notebook kernel — gives it [PeerEnv], the environment as it was before, so
// a peer measured against the course never runs with the course's dump flags.
//
// The memory figures come from the pjrt.LoadedExecutable behind GoMLX's compute.Executable, which
// GoMLX v0.28 and go-xla v0.4 do not export: [MemoryOf] reads that field by reflection and says so
// in its error if a future go-xla renames it.
package hlo
