package workloads

import (
	"fmt"

	"github.com/gomlx/gomlx/core/graph"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/panics"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Allocate asks dev for a rows×cols float32 buffer filled with ones — a real allocation of
// 4·rows·cols bytes by a one-op graph (a broadcast: no FLOPs, no inputs but one scalar) — and frees
// it at once. Unlike every workload's Prepare it does not check first whether the buffer fits: it is
// how a lesson shows a device refusing memory. A refusal comes back as an error wrapping
// ErrOutOfMemory (IsOutOfMemoryMessage decides) and the device's own message; nil means the device
// allocated it. On the CPU devices "device memory" is the machine's RAM, and too large a request can
// get the process killed instead of an error: ask only GPUs for more than they have.
func Allocate(dev *devices.Device, rows, cols int) (err error) {
	if rows < 1 || cols < 1 {
		return fmt.Errorf("workloads: allocating %d×%d float32: both sizes must be ≥ 1", rows, cols)
	}
	what := fmt.Sprintf("%d×%d float32 (%s)", rows, cols, units.BytesFixed(4*float64(rows)*float64(cols)))
	var panicked error // XLA's out-of-memory is a panic
	defer func() {
		if panicked != nil {
			err = fmt.Errorf("%v: %w", panicked, ErrOutOfMemory)
		}
	}()
	defer panics.Catch(&panicked, "workloads: asking %s for %s", dev.Name, what)
	exec, err := NewExec(dev, "allocate", func(one *graph.Node) *graph.Node { return graph.BroadcastToDims(one, rows, cols) })
	if err != nil {
		return err
	}
	defer exec.Finalize()
	outs, err := exec.Exec(float32(1))
	FreeAll(outs)
	return DeviceErr(err, "asking %s for %s", dev.Name, what)
}
