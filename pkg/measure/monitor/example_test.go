package monitor_test

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/monitor"
)

// Sample CPU (and, when present, GPU) utilization while a function runs.
func ExampleRun() {
	tl, err := monitor.Run(20*time.Millisecond, func() error {
		time.Sleep(100 * time.Millisecond) // the experiment
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("CPU samples:", len(tl.CPU) > 0, "cores:", tl.Cores > 0)
	// Output: CPU samples: true cores: true
}
