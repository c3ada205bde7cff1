package data

import (
	"errors"
	"testing"
	"time"
)

func TestStreamLaunchReturnsBeforeTheWorkRuns(t *testing.T) {
	s := NewStream()
	defer s.Close()
	release := make(chan struct{})
	var order []int
	ev1 := s.Launch(func() error { <-release; order = append(order, 1); return nil })
	ev2 := s.Launch(func() error { order = append(order, 2); return nil })
	if ev1.Done() || ev2.Done() {
		t.Fatal("work completed before it was allowed to run: Launch is not asynchronous")
	}
	close(release)
	if err := ev2.Wait(); err != nil {
		t.Fatal(err)
	}
	if !ev1.Done() {
		t.Error("ev2 completed before ev1: launch order not kept")
	}
	if len(order) != 2 || order[0] != 1 || order[1] != 2 {
		t.Errorf("order = %v, want [1 2]", order)
	}
	if ev1.Started.IsZero() || ev1.Finished.Before(ev1.Started) || ev1.Launched.After(ev1.Started) {
		t.Errorf("event times out of order: %+v", ev1)
	}
}

func TestStreamErrorsAreSticky(t *testing.T) {
	s := NewStream()
	boom := errors.New("boom")
	ran := false
	s.Launch(func() error { return boom })
	ev := s.Launch(func() error { ran = true; return nil })
	if err := ev.Wait(); !errors.Is(err, boom) {
		t.Errorf("later event error = %v, want boom", err)
	}
	if ran {
		t.Error("work launched after a failure ran")
	}
	if err := s.Synchronize(); !errors.Is(err, boom) {
		t.Errorf("Synchronize = %v, want boom", err)
	}
	if err := s.Close(); !errors.Is(err, boom) {
		t.Errorf("Close = %v, want boom", err)
	}
}

func TestStreamBusy(t *testing.T) {
	s := NewStream()
	for range 3 {
		s.Launch(func() error { time.Sleep(5 * time.Millisecond); return nil })
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if b := s.Busy(); b < 15*time.Millisecond {
		t.Errorf("Busy = %v, want ≥ 15ms", b)
	}
	_ = s.Close()
}

func TestCPUWorkTakesAboutItsCost(t *testing.T) {
	t0 := time.Now()
	CPUWork(20 * time.Millisecond)
	// Calibrated on an idle moment: it may take longer on a busy machine, never much less.
	if d := time.Since(t0); d < 10*time.Millisecond {
		t.Errorf("CPUWork(20ms) took %v", d)
	}
}
