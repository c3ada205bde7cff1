package measure

import (
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// slowCompile is an instance whose compilation takes long (as XLA's does for a large graph).
type slowCompile struct{ closed chan struct{} }

func (s slowCompile) Compile() (time.Duration, error) {
	time.Sleep(3 * time.Second)
	return 3 * time.Second, nil
}
func (slowCompile) Run() error              { return nil }
func (slowCompile) Check() (float64, error) { return 0, nil }
func (s slowCompile) Close()                { close(s.closed) }

// interruptAfter sends this process SIGINT (what GoNB sends a cell's program on Kernel → Interrupt)
// after d, and returns when it was sent.
func interruptAfter(t *testing.T, d time.Duration) <-chan time.Time {
	t.Helper()
	sent := make(chan time.Time, 1)
	go func() {
		time.Sleep(d)
		sent <- time.Now()
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Error(err)
		}
	}()
	return sent
}

// An interrupt stops Time between the runs of one sample, not only between samples or points, and
// keeps the samples completed so far; the stop latency is logged (no threshold: a loaded machine
// must not fail it).
func TestInterruptStopsTimeBetweenRuns(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  Options
	}{
		{"during warm-up", Options{Warmup: 1000, Reps: 5}},
		{"inside a long sample", Options{Warmup: -1, Reps: 3, RunsPerSample: 1000}},
		{"between samples", Options{Warmup: -1, Reps: 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stop := CatchInterrupt()
			defer stop()
			sent := interruptAfter(t, 300*time.Millisecond)
			run := func() error { time.Sleep(20 * time.Millisecond); return nil }
			st, samples, err := Time(run, tc.opt)
			stopped := time.Now()
			if !errors.Is(err, ErrInterrupted) {
				t.Fatalf("err = %v, want ErrInterrupted", err)
			}
			if st.N != len(samples) {
				t.Errorf("stats of %d samples, %d returned", st.N, len(samples))
			}
			lat := stopped.Sub(<-sent)
			t.Logf("stopped %v after the interrupt (one run is 20ms), %d samples kept", lat.Round(time.Millisecond), len(samples))
			if lat > 10*time.Second {
				t.Errorf("stopped %v after the interrupt", lat)
			}
		})
	}
	// After stop, measurements run normally again.
	if _, _, err := Time(func() error { return nil }, Options{Reps: 3}); err != nil {
		t.Errorf("after the interrupt was handled: %v", err)
	}
}

// An interrupt during a compilation returns at once; the compilation finishes on its own and the
// instance is closed after it.
func TestInterruptDuringCompile(t *testing.T) {
	stop := CatchInterrupt()
	defer stop()
	inst := slowCompile{closed: make(chan struct{})}
	sent := interruptAfter(t, 200*time.Millisecond)
	_, err := compileInterruptibly(inst)
	lat := time.Since(<-sent)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	t.Logf("returned %v after the interrupt (the compilation takes 3 s)", lat.Round(time.Millisecond))
	if lat > 2*time.Second {
		t.Errorf("waited %v for a compilation after the interrupt", lat)
	}
	select {
	case <-inst.closed:
		t.Error("closed before its compilation finished")
	default:
	}
	select {
	case <-inst.closed:
	case <-time.After(10 * time.Second):
		t.Error("never closed after its compilation finished")
	}
}
