//go:build unix

package measure

import (
	"os"
	"runtime"
	"sync"
	"syscall"
	"time"
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

// firstTouchBytes is how much fresh memory firstTouch maps per sample: past the caches, and many
// pages, yet a few tens of milliseconds to touch.
const firstTouchBytes = 64 << 20

// firstTouch measures what the first touch of fresh memory costs per page: a fresh anonymous
// mapping of firstTouchBytes (what a large malloc returns), one byte written per page by one
// goroutine per CPU (as a CPU executable's threads write a new output), the fastest of samples.
// Each touch takes a minor fault: the kernel allocates a page, zeroes it and maps it. The byte
// written is all the program writes, so the time is the fault's, not the memory's bandwidth. ok is
// false when mapping fails.
func firstTouch(samples int) (perPage time.Duration, ok bool) {
	ps := os.Getpagesize()
	workers := runtime.NumCPU()
	best := time.Duration(0)
	for range samples {
		b, err := syscall.Mmap(-1, 0, firstTouchBytes, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			return 0, false
		}
		t0 := time.Now()
		var wg sync.WaitGroup
		for k := range workers {
			lo, hi := k*firstTouchBytes/workers, (k+1)*firstTouchBytes/workers
			wg.Go(func() {
				for i := (lo + ps - 1) / ps * ps; i < hi; i += ps { // the pages that start in [lo, hi)
					b[i] = 1
				}
			})
		}
		wg.Wait()
		d := time.Since(t0)
		_ = syscall.Munmap(b)
		if best == 0 || d < best {
			best = d
		}
	}
	return best / time.Duration(firstTouchBytes/ps), true
}
