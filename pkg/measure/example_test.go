package measure_test

import (
	"fmt"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Time a workload the way the notebooks do: one line, checked against float64 first.
func ExampleRun() {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := measure.Run(dev, workloads.Square(256, dtypes.Float32), measure.Options{}, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Label, "correct:", res.Correct(), "runs:", res.Stats.N)
	// Output: matmul 256×256 @ 256×256 Float32 correct: true runs: 5
}

func ExampleSummarize() {
	ms := time.Millisecond
	s := measure.Summarize([]time.Duration{12 * ms, 10 * ms, 11 * ms, 10 * ms, 30 * ms})
	fmt.Println("median", s.Median, "min", s.Min, "p90", s.P90)
	fmt.Printf("CV %.0f%%\n", 100*s.CV)
	// Output:
	// median 11ms min 10ms p90 30ms
	// CV 59%
}

// The "timing without waiting lies" experiment.
func ExampleTimeWithoutWaiting() {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		fmt.Println(err)
		return
	}
	u, err := measure.TimeWithoutWaiting(dev, workloads.Square(512, dtypes.Float32), measure.Options{Reps: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stopping the timer at launch reports more FLOP/s:", u.Launch.GFLOPS() > 10*u.Synced.GFLOPS())
	// Output: stopping the timer at launch reports more FLOP/s: true
}

func ExampleReadMemory() {
	m := measure.ReadMemory()
	fmt.Println("RSS known:", m.RSS > 0)
	// Output: RSS known: true
}
