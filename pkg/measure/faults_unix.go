//go:build unix

package measure

import (
	"os"
	"syscall"
)

// minorFaults is this process's minor page faults so far: on Linux one for each page of fresh memory
// touched for the first time (the kernel maps it and fills it with zeros), as each new output
// buffer of a CPU execution is.
func minorFaults() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return int64(ru.Minflt), true
}

// pageSize is the operating system's memory page size in bytes.
func pageSize() int { return os.Getpagesize() }
