// Package launch holds the course's launch-bound workloads (package workloads' family of graphs
// small enough that the cost of launching them sets their time): ElementwiseChain and TiedForward,
// each runnable as one executable for the whole graph or one per operation, what a compiled step and
// an eager framework launch. Each is a workloads.Workload.
package launch
