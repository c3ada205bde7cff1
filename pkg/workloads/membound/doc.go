// Package membound holds the course's memory-bound workloads (package workloads' family of graphs
// whose time is bytes over bandwidth): LayerNorm, Elementwise (y = a·x + b), Copy (the bandwidth
// ceiling), Passes (one array read k times) and Transfer (host↔device copies over the bus). Each is
// a workloads.Workload: it runs on every device, reports its FLOPs and bytes, and checks itself
// against float64.
package membound
