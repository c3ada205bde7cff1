//go:build !linux

package cgroup

// affinity: outside Linux the CPUs this process may run on are not read.
var affinity = func() []int { return nil }
