package raceview_test

import (
	"time"

	"github.com/gpu-course/whygpu/lessons/race/raceview"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// The race of lesson 1. In JupyterLab this shows two sliders and animated bars and keeps racing
// as the sliders move; headless it races once; outside a notebook (here) it prints the race.
// The lane times below are stand-ins: a lesson times a real training step on each device.
func ExampleRace() {
	step := func(batch, hidden int) ([]raceview.Lane, error) {
		return []raceview.Lane{
			{Device: "xla:cpu", Time: time.Duration(batch*hidden) * 100 * time.Nanosecond, Source: charts.Live},
			{Device: "xla:cuda", Time: 2 * time.Millisecond, Source: charts.Recorded, Note: "NVIDIA H200, 2026-11-30"},
		}, nil
	}
	_ = raceview.Race(step, raceview.Options{Batch: 64, Hidden: 256})
	// Output:
	// one training step, batch 64 × hidden 256
	//   xla:cpu                         1.64 ms per step, 39063 samples/s  (measured live)
	//   xla:cuda                           2 ms per step, 32000 samples/s  (recorded on NVIDIA H200, 2026-11-30)
	//   xla:cpu (measured live) wins: 1.64 ms vs 2 ms for xla:cuda (recorded on NVIDIA H200, 2026-11-30), 1.22× faster
}
