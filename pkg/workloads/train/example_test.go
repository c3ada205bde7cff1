package train_test

import (
	"fmt"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
	"github.com/gpu-course/whygpu/pkg/workloads/train"
)

// The hidden-sync experiment: the same training loop reading the loss every step, every 10 steps and
// only at the end.
func ExampleLoop() {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		fmt.Println(err)
		return
	}
	tr, err := workloads.MLP{Batch: 32, In: 64, Hidden: 128, Out: 10, Depth: 2, Type: dtypes.Float32}.NewTrainer(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tr.Close()
	for _, every := range []int{1, 10, 0} {
		r, err := train.Loop(tr, train.LoopOptions{Steps: 20, ReadEvery: every})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(r.Reads, "loss reads")
	}
	// Output:
	// 20 loss reads
	// 2 loss reads
	// 1 loss reads
}

// A starved device: each batch costs 4 ms of CPU to make, one loader worker feeds a small model.
func ExampleFromPipeline() {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		fmt.Println(err)
		return
	}
	tr, err := workloads.MLP{Batch: 32, In: 64, Hidden: 64, Out: 10, Depth: 1, Type: dtypes.Float32}.NewTrainer(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tr.Close()
	r, err := train.FromPipeline(tr, data.Pipeline{Workers: 1, CostPerBatch: 4 * time.Millisecond}, 10)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("steps:", r.Steps, "spans:", len(r.Spans), "first:", r.Spans[0].Kind)
	// r.String() says where the time went, e.g. "xla:cpu, 1 workers × 4ms/batch, prefetch 2: 10 steps in
	// 45ms; compute 3ms (7%), upload 0s, waiting for data 41ms".
	// Output:
	// steps: 10 spans: 30 first: wait
}
