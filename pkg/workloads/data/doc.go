// Package data holds what feeds a training step, the seam of GoMLX's ml/data: an input pipeline of
// loader goroutines doing real CPU work per batch (Pipeline, Loader, CPUWork), the GPT's random
// next-token windows of a text (TextBatches), and Stream, the CUDA-stream-like launch queue that
// lets the host run ahead of the device.
//
// Nothing here builds a graph (every graph lives in pkg/workloads) or runs a training step (that is
// pkg/workloads/train): a Loader hands out host batches, a Stream runs whatever function it is given.
package data
