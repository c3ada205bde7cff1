// Package experiments ties lessons to their measurements: the size knob (Scale), the List of
// experiments each lesson makes (lessons/all joins them, so `whygpu record` can run them all on a
// chosen device), and the reference results recorded on devices a learner may not have (a GPU),
// which lessons show next to their live numbers, labeled as recorded. It also holds what two
// lessons share about the course's training step (Step and its sweeps): they need Step and the
// reference files, which are this package's; their charts with the GPU model's band, the model
// against a recording of the step and CardVersus over every recording are package stepcharts' (the
// view layer). Counting a program's kernels is package hlo's (hlo.CompiledKernels), and the GPU
// model of a step is gpumodel's (gpumodel.StepEstimate).
//
// Reference results live in the repository under
//
//	lessons/reference/<device-slug>/<lesson>/<experiment>.json
//
// written by `whygpu record` from a real run on that device, never by hand.
package experiments
