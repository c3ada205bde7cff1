package hlo_test

import (
	"fmt"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
)

// Eight elementwise operations in one graph: XLA fuses them into a single kernel, which reads x once
// and writes y once.
func ExampleInspect() {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := graph.NewExec(dev.Backend(), func(x *graph.Node) *graph.Node {
		for range 4 {
			x = graph.AddScalar(graph.MulScalar(x, 1.01), 0.5)
		}
		return x
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Finalize()
	r, err := hlo.Inspect(e.WithName("chain"), tensors.FromValue(make([]float32, 1024)))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Kernels)
	fmt.Println(r.Memory)
	// Output:
	// 1 kernel (1 fusion of 8 ops)
	// arguments 4 KiB, outputs 4 KiB, aliased 0 B, temporaries 0 B → 8 KiB
}
