// Package cgroup reads what the Linux control group of this process allows it: the memory limit (v2
// memory.max, v1 memory.limit_in_bytes), how many processes the kernel killed for memory, the CPUs it may
// run on and its CPU quota (cpuset, cpu.max), and how often the CPU quota throttled it (cpu.stat). In a
// container (Docker, Kubernetes, a JupyterHub seat) these, not the host's RAM and cores, are what a
// learner's experiment gets. Outside Linux, or without a cgroup limit, every reader says so and reports
// nothing.
//
// It is a leaf: devices uses it for memory budgets and the seat's core count, measure for disturbed
// timings, display to explain a cell that was killed for memory.
package cgroup
