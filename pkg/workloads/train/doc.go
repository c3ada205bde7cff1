// Package train holds what drives training steps, the seam of GoMLX's ml/train:
//
//   - the training loops over an MLP's workloads.Trainer: Loop (launches on a data.Stream, the loss
//     read every step, every k steps or at the end) and FromPipeline (batches from a data.Pipeline);
//   - GPTTrainer, a gpt.GPT trained by GoMLX's own train.Trainer with its optimizer.Adam, and
//     CompileGPTStep, the same step compiled but not run;
//   - GradLab, a workloads.GradModel's parameters held on a device with its SGD step and its scaled
//     gradients (lesson 05).
//
// The rule it keeps: every graph lives in pkg/workloads. A trainer here creates no graph node: it
// compiles, runs and times what a workload's graph function built (GPT.Logits, GPT.NextToken,
// GradModel.SGDStep, GradModel.ScaledGradients), and what GoMLX's trainer adds to it (the gradient
// and Adam's update). lessons/all's TestOnlyWorkloadsBuildsGraphs checks that this package uses GoMLX's
// graph package only to compile and run. The MLP's step itself, with its parameters on the device
// (workloads.Trainer), stays in pkg/workloads: it is what measure.Run prepares from a workloads.MLP,
// and pkg/workloads cannot import this package.
package train
