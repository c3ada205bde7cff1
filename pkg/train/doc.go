// Package train holds what drives training steps, the seam of GoMLX's ml/train: the training loops
// that time a step on a stream (Loop: the loss read every step, every k steps or at the end) and feed
// it from an input pipeline (FromPipeline).
//
// The rule it keeps: every graph lives in pkg/workloads. A trainer here never creates a graph node;
// it calls the graph-building function of a workload (its step, its model) and compiles, runs and
// times what that function built. A step prepared on a device that measure.Run must also be able to
// prepare (the MLP's workloads.Trainer) stays in pkg/workloads, since workloads cannot import train.
package train
