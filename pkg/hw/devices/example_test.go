package devices_test

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// Open the XLA CPU device and look at what the course knows about it.
func ExampleOpen() {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dev.Name, dev.Kind, dev.Cores > 0, dev.Ceilings.Peak("float32") > 0)
	// Output: xla:cpu cpu true true
}
