package workloads_test

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
)

// The arithmetic intensity of the source text's two examples: a 4096² GEMM in a 2-byte format and a
// LayerNorm over the same activations.
func ExampleMatMul() {
	mm := workloads.Square(4096, dtypes.BFloat16)
	ln := membound.LayerNorm{Rows: 8192, Cols: 4096, Type: dtypes.BFloat16}
	fmt.Printf("%s: %.0f FLOPs per byte\n", mm, mm.FLOPs()/mm.Bytes())
	fmt.Printf("%s: %.2f FLOPs per byte\n", ln, ln.FLOPs()/ln.Bytes())
	// Output:
	// matmul 4096×4096 @ 4096×4096 BFloat16: 1365 FLOPs per byte
	// layernorm 8192×4096 BFloat16: 1.75 FLOPs per byte
}

// Prepare a workload on a device, compile it, and check it against the float64 reference.
func ExampleMatMul_Prepare() {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		fmt.Println(err)
		return
	}
	w := workloads.Square(256, dtypes.Float32)
	inst, err := w.Prepare(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer inst.Close()
	if _, err := inst.Compile(); err != nil {
		fmt.Println(err)
		return
	}
	relErr, err := inst.Check()
	fmt.Println("correct:", err == nil && relErr < workloads.ToleranceOf(dev, w))
	// Output: correct: true
}

// What a training step keeps in memory, from shapes alone.
func ExampleMLP_Memory() {
	w := workloads.MLP{Batch: 256, In: 784, Hidden: 1024, Out: 10, Depth: 2, Type: dtypes.Float32, Optimizer: workloads.Adam}
	fmt.Println(w.NumParams(), "parameters")
	fmt.Println(w.Memory())
	fmt.Printf("%.2f GFLOPs per step\n", w.FLOPs()/1e9)
	// Output:
	// 1863690 parameters
	// parameters 7.1 MiB, gradients 7.1 MiB, optimizer 14.2 MiB, activations 2.0 MiB, batch 794.0 KiB = 31.2 MiB
	// 2.86 GFLOPs per step
}

func ExampleTransfer() {
	for _, size := range []int{4 << 10, 1 << 20, 64 << 20} {
		w := membound.Transfer{Size: size, Direction: membound.HostToDevice}
		fmt.Println(w, w.Bytes())
	}
	// Output:
	// host→device 4.0 KiB 4096
	// host→device 1.0 MiB 1.048576e+06
	// host→device 64.0 MiB 6.7108864e+07
}
