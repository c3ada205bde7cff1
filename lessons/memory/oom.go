package memory

import (
	"errors"
	"fmt"
	"math"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Running out of memory: the budget check before allocating, and catching the error.

// Budget checks, from shapes alone, whether one training step of w fits in what dev has available
// now, and refuses before allocating anything: the error wraps workloads.ErrOutOfMemory and says
// how large a batch would fit. It is what a careful training script does before asking the device.
func Budget(dev *devices.Device, w workloads.MLP) error {
	avail := dev.AvailableMemory()
	if avail == 0 {
		return nil // unknown: let the device decide
	}
	need := w.Memory().Total()
	if float64(need) <= workloads.Headroom*float64(avail) {
		return nil
	}
	return fmt.Errorf("%s: one training step needs %s (computed from shapes: %s) but %s has %s available%s — refused before allocating; the largest batch that fits is about %d: %w",
		w, units.BytesFixed(float64(need)), w.Memory(), dev.Name, units.BytesFixed(float64(avail)),
		limitNote(dev), LargestBatch(w, uint64(workloads.Headroom*float64(avail))), workloads.ErrOutOfMemory)
}

// limitNote says which memory limit a CPU device's budget came from (the container's or the host's).
func limitNote(dev *devices.Device) string {
	if dev.IsGPU() {
		return " (free GPU memory, NVML)"
	}
	return " (" + devices.HostMemoryLimit().String() + ")"
}

// Usable is the memory one step may plan to use on dev: workloads.Headroom of what it has
// available now (0 when unknown).
func Usable(dev *devices.Device) uint64 {
	return uint64(workloads.Headroom * float64(dev.AvailableMemory()))
}

// LargestBatch is the largest batch of w whose step fits in budget bytes, from shapes: (budget −
// weights, gradients and optimizer state) ÷ (activations and batch per sample). 0 when not even
// the model state fits.
func LargestBatch(w workloads.MLP, budget uint64) int {
	one := w
	one.Batch = 1
	m := one.Memory()
	fixed := m.Parameters + m.Gradients + m.OptimizerState
	perSample := m.Activations + m.Batch
	if int64(budget) <= fixed || perSample <= 0 {
		return 0
	}
	return int((int64(budget) - fixed) / perSample)
}

// TooLarge returns the lesson's model at a batch about twice as large as what dev has available:
// the step a learner gets by turning the batch up too far.
func TooLarge(dev *devices.Device) workloads.MLP {
	w := Model(experiments.CurrentScale(), 1)
	avail := dev.AvailableMemory()
	if avail == 0 {
		avail = 1 << 40
	}
	per := w.Memory().Activations + w.Memory().Batch
	w.Batch = int(min(2*int64(avail)/per+1, math.MaxInt32))
	return w
}

// TryTooLarge asks for TooLarge(dev)'s training step through the same path as the sweep (Budget
// first): it returns the error, which wraps workloads.ErrOutOfMemory. Nothing is allocated.
func TryTooLarge(dev *devices.Device) (workloads.MLP, error) {
	w := TooLarge(dev)
	_, err := MeasureBatch(dev, w)
	return w, err
}

// GPUOutOfMemory asks a GPU for a buffer twice its memory — a real allocation the device refuses —
// and returns the device's error, wrapped so errors.Is(err, workloads.ErrOutOfMemory) holds. On a
// device that is not a GPU it allocates nothing and says so: on the CPU devices "device memory" is
// the machine's RAM, and asking for too much of it can get the whole kernel killed instead of an
// error, which is why Budget checks first there.
func GPUOutOfMemory(dev *devices.Device) error {
	if !dev.IsGPU() {
		return fmt.Errorf("%s is not a GPU: the real out-of-memory experiment runs only on a GPU (nothing was allocated)", dev.Name)
	}
	total := dev.MemoryBytes
	if total == 0 {
		total = 80 << 30
	}
	const cols = 1 << 20
	rows := int(2 * total / (4 * cols)) // float32: twice the GPU's memory
	err := workloads.Allocate(dev, rows, cols)
	if err == nil {
		return fmt.Errorf("%s allocated %s without complaint: nothing to catch", dev.Name, units.BytesFixed(float64(rows)*cols*4))
	}
	return err
}

// IsOOM reports whether err is an out-of-memory error (workloads.ErrOutOfMemory).
func IsOOM(err error) bool { return errors.Is(err, workloads.ErrOutOfMemory) }

// Caught describes an error a cell expected — an out-of-memory refusal — as plain text for the
// learner (an unexpected error should go to display.Error instead).
func Caught(err error) string {
	switch {
	case err == nil:
		return "no error: the step fitted"
	case IsOOM(err):
		return "caught, as a value (errors.Is(err, workloads.ErrOutOfMemory) is true):\n  " + err.Error()
	default:
		return "not run: " + err.Error()
	}
}
