package results_test

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Where a result sits under the measured roofline of its device.
func ExampleResult_PercentOfCeiling() {
	r := results.Result{
		FLOPs: 2 * 1024 * 1024 * 1024, Bytes: 3 * 1024 * 1024 * 4, // a 1024³ float32 matmul
		Stats:        results.Stats{N: 1, Median: 10 * time.Millisecond},
		CeilingFLOPS: 250e9, CeilingBytesPerSec: 5e9,
	}
	fmt.Printf("%.0f GFLOP/s at %.0f FLOPs/byte: %.0f%% of the measured ceiling\n", r.GFLOPS(), r.Intensity(), r.PercentOfCeiling())
	// Output: 215 GFLOP/s at 171 FLOPs/byte: 86% of the measured ceiling
}
