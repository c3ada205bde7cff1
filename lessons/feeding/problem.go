package feeding

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// The numbers of ProblemWorkers: 32 images a batch, 12 ms of one core to decode and augment each,
// a 30 ms training step on the GPU.
const (
	workersBatch  = 32
	workersDecode = 12 * time.Millisecond
	workersStep   = 30 * time.Millisecond
)

// ProblemWorkers is lesson 07's applied problem: how many loader workers keep a GPU's 30 ms step
// fed when each image takes 12 ms of CPU to decode (WorkersNeeded, the loader model).
var ProblemWorkers = exercise.Problem{
	Key: "07/loader-workers",
	Question: "A GPU runs a training step in 30 ms on batches of 32 images. Decoding and augmenting one image takes " +
		"12 ms of one CPU core, and each loader worker runs on its own core. How many workers, at least, keep the GPU " +
		"from ever waiting for a batch?",
	Unit:    "workers",
	Formula: "images × decode ÷ step",
	Hint:    "first find the CPU time one batch costs; then ask how many batches must be in the making at once for one to be ready every step.",
	Solve: func() (exercise.Solution, error) {
		load := workersBatch * workersDecode
		n := WorkersNeeded(workersStep, load)
		_, util := Fed(workersStep, load, n-1)
		return exercise.Solution{Value: float64(n), Steps: []string{
			fmt.Sprintf("One batch: %d images × 12 ms = %d ms of CPU work.", workersBatch, load.Milliseconds()),
			fmt.Sprintf("The GPU takes a batch every 30 ms, so %d ms ÷ 30 ms = %.1f batches must be in the making at once: round up to %d workers.", load.Milliseconds(), float64(load)/float64(workersStep), n),
			fmt.Sprintf("Check: with %d workers a batch is ready every %.1f ms, slower than the step: the GPU would be busy only %.0f%% of the time.", n-1, float64(load.Microseconds())/1000/float64(n-1), 100*util),
			fmt.Sprintf("So %d loader cores per GPU, plus one for the training loop: %d cores per GPU, %d for an 8-GPU node.", n, n+1, 8*(n+1)),
		}}, nil
	},
}
