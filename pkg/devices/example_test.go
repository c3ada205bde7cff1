package devices_test

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/devices"
)

// Open the XLA CPU device and look at what the course knows about it.
func ExampleOpen() {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dev.Name, dev.Kind, dev.Cores > 0, dev.Spec.Peak("float32") > 0)
	// Output: xla:cpu cpu true true
}

// The ridge point of the datasheet H100: above ≈295 FLOPs per byte a bf16 operation is compute-bound.
func ExampleCeilings_Ridge() {
	h100, _ := devices.SpecByModel("NVIDIA H100 SXM")
	fmt.Printf("%.0f FLOPs/byte\n", h100.Ceilings.Ridge("bfloat16"))
	// Output: 295 FLOPs/byte
}
