package data

import (
	"sync"
	"time"
)

// StreamDepth is how many launches a Stream queues before Launch blocks, like CUDA's launch queue
// (about a thousand kernels).
const StreamDepth = 1024

// Stream runs device work in launch order on its own goroutine and lets the caller go on at once:
// the semantics of a CUDA stream, which is what PyTorch's kernel launches go to.
//
// go-xla's execute is synchronous: graph.Exec returns only after PJRT's device-completion events
// fired. A GPU framework instead returns from a launch in microseconds while the kernel runs later.
// Stream reproduces that with real concurrency, so lessons can show what it does to timing: a timer
// stopped right after Launch measures the launch, not the work (and reports impossible FLOP/s), and
// only Event.Wait or Synchronize — like torch.cuda.synchronize() or loss.item() — makes the host wait
// for the device. Nothing here is simulated: the work runs, on a goroutine instead of a GPU queue.
//
// A failed launch makes the stream's error sticky (as a CUDA error is): later work is skipped and
// every later Event and Synchronize return that error.
type Stream struct {
	queue chan *Event
	done  chan struct{}

	mu   sync.Mutex
	busy time.Duration // total time spent running work
	err  error         // first error
	last *Event        // last launched event
}

// Event marks one launched piece of work; it completes when the work has run (or was skipped after an
// earlier error).
type Event struct {
	fn       func() error
	done     chan struct{}
	err      error
	Launched time.Time // when Launch was called
	Started  time.Time // when the stream began running it (zero if skipped)
	Finished time.Time // when it completed
}

// NewStream starts a stream. Close it when done.
func NewStream() *Stream {
	s := &Stream{queue: make(chan *Event, StreamDepth), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *Stream) loop() {
	defer close(s.done)
	for ev := range s.queue {
		s.mu.Lock()
		err := s.err
		s.mu.Unlock()
		if err == nil {
			ev.Started = time.Now()
			err = ev.fn()
			ev.Finished = time.Now()
			s.mu.Lock()
			s.busy += ev.Finished.Sub(ev.Started)
			if err != nil && s.err == nil {
				s.err = err
			}
			s.mu.Unlock()
		} else {
			ev.Finished = time.Now()
		}
		ev.err = err
		close(ev.done)
	}
}

// Launch queues fn and returns at once (blocking only when StreamDepth launches are already queued).
// fn runs after everything launched before it, on the stream's goroutine.
func (s *Stream) Launch(fn func() error) *Event {
	ev := &Event{fn: fn, done: make(chan struct{}), Launched: time.Now()}
	s.mu.Lock()
	s.last = ev
	s.mu.Unlock()
	s.queue <- ev
	return ev
}

// Wait blocks until the event's work has run and returns its error (or the stream's earlier error).
func (e *Event) Wait() error {
	<-e.done
	return e.err
}

// Done reports, without blocking, whether the work has completed.
func (e *Event) Done() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// Synchronize waits for everything launched so far and returns the stream's first error.
func (s *Stream) Synchronize() error {
	s.mu.Lock()
	last := s.last
	s.mu.Unlock()
	if last != nil {
		_ = last.Wait()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Busy is the total time the stream spent running work so far.
func (s *Stream) Busy() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy
}

// Close waits for launched work to finish, stops the stream and returns its first error. The stream
// cannot be used afterwards.
func (s *Stream) Close() error {
	close(s.queue)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}
