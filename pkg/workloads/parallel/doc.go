// Package parallel holds data parallelism (package workloads' family for lesson 10): one MLP
// training step split over several devices with its gradients all-reduced (DataParallel,
// CompareSteps against the one-device step) and the all-reduce alone (AllReduceTime). The SPMD step
// and the all-reduce are graphs, so they live under pkg/workloads; pkg/hw/devices only opens the CPU
// plugin as several devices (devices.CPUSplit).
package parallel
