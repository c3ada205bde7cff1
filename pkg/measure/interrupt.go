package measure

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
)

// ErrInterrupted is returned by Time (and so by every sweep built on it) when the learner interrupted
// the cell (Kernel → Interrupt: GoNB sends the cell's program SIGINT) while CatchInterrupt was on.
var ErrInterrupted = errors.New("interrupted")

var (
	interrupted atomic.Bool
	mu          sync.Mutex
	// interruptCh is closed when an interrupt arrives (replaced by each CatchInterrupt).
	interruptCh = make(chan struct{})
)

// CatchInterrupt makes an interrupt of the cell stop the measurements running now instead of ending
// the program, so what was measured so far can be kept and shown. Time checks between runs (not only
// between samples or points), and Run stops waiting for a compilation in progress, so the measurement
// returns ErrInterrupted within one run of the workload (or at once, while it compiles). Call the
// returned function when done.
func CatchInterrupt() (stop func()) {
	interrupted.Store(false)
	fired := make(chan struct{})
	mu.Lock()
	interruptCh = fired
	mu.Unlock()
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			interrupted.Store(true)
			close(fired)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
		// Past this point an interrupt ends the program again, and later measurements run normally.
		interrupted.Store(false)
		mu.Lock()
		interruptCh = make(chan struct{})
		mu.Unlock()
	}
}

// Interrupted reports whether an interrupt arrived since CatchInterrupt.
func Interrupted() bool { return interrupted.Load() }

// interruptNotice is closed when an interrupt arrives after the latest CatchInterrupt.
func interruptNotice() <-chan struct{} {
	mu.Lock()
	defer mu.Unlock()
	return interruptCh
}
