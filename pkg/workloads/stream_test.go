package workloads

import (
	"errors"
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/devices"
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

func TestTrainReadVariants(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	tr, err := MLP{Batch: 8, In: 8, Hidden: 16, Out: 2, Depth: 1, Type: dtypes.Float32}.NewTrainer(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, tc := range []struct {
		readEvery, reads int
	}{{1, 6}, {4, 2}, {0, 1}} {
		r, err := tr.Train(LoopOptions{Steps: 6, ReadEvery: tc.readEvery})
		if err != nil {
			t.Fatal(err)
		}
		if r.Reads != tc.reads || len(r.Losses) != tc.reads {
			t.Errorf("ReadEvery %d: %d reads (%d losses), want %d", tc.readEvery, r.Reads, len(r.Losses), tc.reads)
		}
		if r.DeviceBusy <= 0 || r.DeviceBusy > r.Wall || r.ReadTime > r.Wall {
			t.Errorf("ReadEvery %d: inconsistent times %+v", tc.readEvery, r)
		}
		t.Log(r)
	}
	if _, err := tr.Train(LoopOptions{Steps: 2, ReadEvery: -1}); err == nil {
		t.Error("ReadEvery −1 should be an error")
	}
}

func TestTrainFromPipeline(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	tr, err := MLP{Batch: 8, In: 8, Hidden: 16, Out: 2, Depth: 1, Type: dtypes.Float32}.NewTrainer(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	// A slow loader (5 ms of CPU per batch) in front of a tiny model: the device waits. (How much
	// depends on what else the cores run, so only the bookkeeping is asserted.)
	r, err := tr.TrainFrom(Pipeline{Workers: 1, Prefetch: 1, CostPerBatch: 5 * time.Millisecond}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Spans) != 3*5 {
		t.Fatalf("%d spans, want 15", len(r.Spans))
	}
	if sum := r.Waiting + r.Upload + r.Compute; sum > r.Wall || r.Waiting <= 0 || r.Compute <= 0 {
		t.Errorf("waiting %v + upload %v + compute %v vs wall %v", r.Waiting, r.Upload, r.Compute, r.Wall)
	}
	// The first batch cannot be ready before 5 ms of decoding: the loop starts starved.
	if first := r.Spans[0]; first.Kind != SpanWait || first.End-first.Start < 2*time.Millisecond {
		t.Errorf("first span %+v: want a wait of about 5 ms", first)
	}
	if u := r.Utilization(); u <= 0 || u >= 1 {
		t.Errorf("Utilization = %g, want in (0, 1)", u)
	}
	for i, s := range r.Spans {
		if s.End < s.Start || (i > 0 && s.Start < r.Spans[i-1].End) {
			t.Errorf("span %d %+v out of order", i, s)
		}
	}
	t.Log(r)
}

func TestCPUWorkTakesAboutItsCost(t *testing.T) {
	t0 := time.Now()
	CPUWork(20 * time.Millisecond)
	// Calibrated on an idle moment: it may take longer on a busy machine, never much less.
	if d := time.Since(t0); d < 10*time.Millisecond {
		t.Errorf("CPUWork(20ms) took %v", d)
	}
}
