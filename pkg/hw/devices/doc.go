// Package devices finds, opens and describes the compute devices of the course: the XLA CPU PJRT
// plugin ("xla:cpu"), the XLA CUDA PJRT plugin ("xla:cuda", when a GPU and its plugin exist) and
// GoMLX's pure-Go backend ("go", a fallback and a teaching contrast, never "the CPU").
//
// The same GoMLX graph runs on any of them: a Device is a compute.Backend plus what the lessons need to
// know about the hardware behind it (model, cores, memory) and its ceilings (peak FLOP/s per dtype and
// memory bandwidth) from the datasheet table (package datasheet) or from a model of the CPU.
//
// What a GPU is has one home per question (issue 36): its published facts are package datasheet's
// (the one table); what is here is this package's — spec.go reads this machine's CPU (CPUFacts, and
// the CPU ceiling model built from them, CPUModel) and a present GPU's driver facts (GPUInfo, through
// NVML), and puts a datasheet row's Ceilings on a GPU it opens; how long work would take on a GPU
// that is not here, and the model's card against published measurements (card.go), are package
// gpumodel's. No package copies a datasheet field.
//
// Devices are opened at most once per process and shared: opening a PJRT client is expensive, and every
// GoNB cell is its own process, so a cell pays for it once.
package devices
