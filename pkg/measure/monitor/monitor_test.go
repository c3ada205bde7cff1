package monitor

import (
	"encoding/json"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

func TestBusyPercent(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b cpu.TimesStat
		want float64
	}{
		{"all busy", cpu.TimesStat{User: 1}, cpu.TimesStat{User: 2}, 100},
		{"half", cpu.TimesStat{User: 1, Idle: 1}, cpu.TimesStat{User: 1.5, System: 0.5, Idle: 2}, 50},
		{"iowait counts as idle", cpu.TimesStat{}, cpu.TimesStat{User: 1, Iowait: 3}, 25},
		{"no time passed", cpu.TimesStat{User: 1}, cpu.TimesStat{User: 1}, 0},
		{"counter went backwards", cpu.TimesStat{User: 2}, cpu.TimesStat{User: 1}, 0},
	} {
		if got := busyPercent(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: busyPercent = %g, want %g", tc.name, got, tc.want)
		}
	}
}

func spin(d time.Duration) {
	x := 1.0
	for t0 := time.Now(); time.Since(t0) < d; {
		for i := 0; i < 1000; i++ {
			x = x*1.0000001 + 1e-9
		}
	}
	_ = x
}

func TestRunRecordsCPU(t *testing.T) {
	tl, err := Run(10*time.Millisecond, func() error {
		done := make(chan bool)
		for range runtime.NumCPU() {
			go func() { spin(600 * time.Millisecond); done <- true }() // long enough for ≥ 5 samples on a loaded machine
		}
		for range runtime.NumCPU() {
			<-done
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tl.Cores != runtime.NumCPU() {
		t.Errorf("Cores = %d, want %d", tl.Cores, runtime.NumCPU())
	}
	if len(tl.CPU) < 5 {
		t.Fatalf("%d CPU samples in %v", len(tl.CPU), tl.Duration)
	}
	for i, s := range tl.CPU {
		if len(s.Cores) != tl.Cores || (i > 0 && s.T < tl.CPU[i-1].T) {
			t.Fatalf("sample %d malformed: %+v", i, s)
		}
	}
	if m := tl.MeanCPU(); m < 30 {
		t.Errorf("mean CPU %.0f%% while every core spun", m)
	}
	ts, pct := tl.CPUSeries(0)
	if len(ts) != len(tl.CPU) || len(pct) != len(ts) {
		t.Errorf("CPUSeries(0): %d times, %d values, want %d", len(ts), len(pct), len(tl.CPU))
	}
	if len(devices.GPUs()) == 0 && tl.HasGPU() {
		t.Error("GPU samples on a machine without a GPU")
	}
	b, err := json.Marshal(tl)
	if err != nil {
		t.Fatal(err)
	}
	var back Timeline
	if err := json.Unmarshal(b, &back); err != nil || len(back.CPU) != len(tl.CPU) || back.Interval != tl.Interval {
		t.Errorf("JSON round trip: %v", err)
	}
}

func TestSamplerMarksAndStopTwice(t *testing.T) {
	s := Start(0)
	s.Mark("begin")
	time.Sleep(50 * time.Millisecond)
	s.Mark("end")
	tl := s.Stop()
	if tl.Interval != DefaultInterval {
		t.Errorf("Interval = %v, want DefaultInterval", tl.Interval)
	}
	if len(tl.Marks) != 2 || tl.Marks[0].Label != "begin" || tl.Marks[1].T < tl.Marks[0].T {
		t.Errorf("Marks = %+v", tl.Marks)
	}
	if again := s.Stop(); again.Duration != tl.Duration || len(again.CPU) != len(tl.CPU) {
		t.Error("a second Stop changed the timeline")
	}
	if _, u, _ := tl.GPUSeries(0); len(devices.GPUs()) == 0 && len(u) != 0 {
		t.Error("GPU series without a GPU")
	}
}

// Stop may be called twice, from two goroutines at once; a panicking fn stops the sampler anyway.
func TestStopTwiceAndPanicStopsTheSampler(t *testing.T) {
	s := Start(time.Millisecond)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); s.Stop() }()
	}
	wg.Wait()
	before := runtime.NumGoroutine()
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the panic did not go on")
			}
		}()
		_, _ = Run(time.Millisecond, func() error { panic("boom") })
	}()
	time.Sleep(20 * time.Millisecond)
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines after a panicking Run, %d before: the sampler leaked", after, before)
	}
}
