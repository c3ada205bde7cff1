// Package devices finds, opens and describes the compute devices of the course: the XLA CPU PJRT
// plugin ("xla:cpu"), the XLA CUDA PJRT plugin ("xla:cuda", when a GPU and its plugin exist) and
// GoMLX's pure-Go backend ("go", a fallback and a teaching contrast, never "the CPU").
//
// The same GoMLX graph runs on any of them: a Device is a compute.Backend plus what the lessons need to
// know about the hardware behind it (model, cores, memory) and its ceilings (peak FLOP/s per dtype and
// memory bandwidth) from the datasheet table (package datasheet) or from a model of the CPU.
//
// Devices are opened at most once per process and shared: opening a PJRT client is expensive, and every
// GoNB cell is its own process, so a cell pays for it once.
package devices
