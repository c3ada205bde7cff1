package measure

import (
	"errors"
	"os"
	"os/signal"
	"sync/atomic"
)

// ErrInterrupted is returned by Time (and so by every sweep built on it) when the learner interrupted
// the cell (Kernel → Interrupt: GoNB sends the cell's program SIGINT) while CatchInterrupt was on.
var ErrInterrupted = errors.New("interrupted")

var interrupted atomic.Bool

// CatchInterrupt makes an interrupt of the cell stop the measurements running now, after the sample in
// progress (Time checks between samples, a few tens of milliseconds apart), instead of ending the
// program: what was measured so far can then be kept and shown. Call the returned function when done.
func CatchInterrupt() (stop func()) {
	interrupted.Store(false)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			interrupted.Store(true)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// Interrupted reports whether an interrupt arrived since CatchInterrupt.
func Interrupted() bool { return interrupted.Load() }
