package cgroup

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// affinity is the CPUs this process may run on (sched_getaffinity); nil when it cannot be read. A
// variable so tests can set it.
var affinity = func() []int {
	var set unix.CPUSet
	if unix.SchedGetaffinity(0, &set) != nil {
		return nil
	}
	var out []int
	for c := 0; c < 8*int(unsafe.Sizeof(set)); c++ {
		if set.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}
