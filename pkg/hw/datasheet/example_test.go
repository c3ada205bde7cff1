package datasheet_test

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
)

// The ridge point of the datasheet H100: above ≈295 FLOPs per byte a bf16 operation is compute-bound.
func ExampleCeilings_Ridge() {
	fmt.Printf("%.0f FLOPs/byte\n", datasheet.H100.Ceilings.Ridge("bfloat16"))
	// Output: 295 FLOPs/byte
}

// A GPU found by the name its driver reports.
func ExampleLookup() {
	g, err := datasheet.Lookup("NVIDIA H200")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(g.Model, g.SMs, "SMs,", g.CUDACores(), "FP32 lanes,", g.ResidentThreads(), "resident threads")
	// Output: NVIDIA H200 SXM 132 SMs, 16896 FP32 lanes, 270336 resident threads
}
