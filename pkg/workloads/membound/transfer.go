package membound

import (
	"fmt"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"math/rand/v2"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Direction is which way a Transfer copies.
type Direction string

// Directions of a Transfer.
const (
	HostToDevice Direction = "h2d" // host memory → device memory (a batch going to the GPU)
	DeviceToHost Direction = "d2h" // device memory → host memory (a result, or loss.item())
)

// Transfer copies Size bytes between host and device memory in one direction: the bandwidth-vs-size
// curve of the bus (PCIe or NVLink-C2C on a GPU; a memcpy within RAM on the CPU devices, where
// "device" memory is host memory).
//
// FLOPs = 0. Bytes = Size. A run is one compute.Backend call on an unpinned Go slice:
// BufferFromFlatData (host→device; go-xla waits for PJRT's done_with_host_buffer event, after which
// the host slice may be reused) or Buffer.ToFlatData (device→host; go-xla waits until the bytes are
// in the slice). Fixed per-call costs dominate small sizes; bandwidth dominates large ones.
type Transfer struct {
	Size      int       // bytes
	Direction Direction // HostToDevice or DeviceToHost
	Seed      uint64    // data seed; 0 draws a fresh one
}

// Name returns "transfer-h2d" or "transfer-d2h".
func (w Transfer) Name() string { return "transfer-" + string(w.Direction) }

// DType returns uint8: a transfer moves bytes.
func (w Transfer) DType() dtypes.DType { return dtypes.Uint8 }

// Params returns {"bytes"}.
func (w Transfer) Params() map[string]int { return map[string]int{"bytes": w.Size} }

// String describes it, e.g. "host→device 1.0 MiB".
func (w Transfer) String() string {
	arrow := "host→device"
	if w.Direction == DeviceToHost {
		arrow = "device→host"
	}
	return fmt.Sprintf("%s %s", arrow, units.BytesFixed(float64(w.Size)))
}

// FLOPs is 0.
func (w Transfer) FLOPs() float64 { return 0 }

// Bytes is Size.
func (w Transfer) Bytes() float64 { return float64(w.Size) }

// Validate reports a non-positive size or an unknown direction.
func (w Transfer) Validate() error {
	if w.Size <= 0 {
		return fmt.Errorf("workloads: a transfer needs a positive size in bytes, got %d", w.Size)
	}
	if w.Direction != HostToDevice && w.Direction != DeviceToHost {
		return fmt.Errorf("workloads: transfer direction must be %q or %q, got %q", HostToDevice, DeviceToHost, w.Direction)
	}
	return nil
}

// Prepare allocates the host slice (and for device→host the device buffer) outside any timed region.
func (w Transfer) Prepare(dev *devices.Device) (workloads.Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if err := workloads.CheckFits(dev, w.String(), float64(w.Size), 2*float64(w.Size)); err != nil {
		return nil, err
	}
	host := make([]uint8, w.Size)
	r := rand.New(rand.NewPCG(workloads.SeedOrFresh(w.Seed), 7))
	for i := range host {
		host[i] = uint8(r.Uint32())
	}
	in := &transferInstance{w: w, dev: dev, host: host, shape: shapes.Make(dtypes.Uint8, w.Size)}
	if w.Direction == DeviceToHost {
		buf, err := dev.Backend().BufferFromFlatData(0, host, in.shape)
		if err != nil {
			return nil, workloads.DeviceErr(err, "allocating %s on %s", units.BytesFixed(float64(w.Size)), dev.Name)
		}
		in.buf = buf
	}
	return in, nil
}

type transferInstance struct {
	w     Transfer
	dev   *devices.Device
	host  []uint8
	shape shapes.Shape
	buf   compute.Buffer // device buffer read by device→host runs
}

// Compile is a no-op: a transfer has no graph.
func (t *transferInstance) Compile() (time.Duration, error) { return 0, nil }

func (t *transferInstance) Run() error {
	if t.w.Direction == DeviceToHost {
		return workloads.DeviceErr(t.buf.ToFlatData(t.host), "reading %s from %s", units.BytesFixed(float64(t.w.Size)), t.dev.Name)
	}
	buf, err := t.dev.Backend().BufferFromFlatData(0, t.host, t.shape)
	if err != nil {
		return workloads.DeviceErr(err, "writing %s to %s", units.BytesFixed(float64(t.w.Size)), t.dev.Name)
	}
	return buf.Finalize()
}

// Check round-trips the data (host→device→host into a fresh slice) and returns the fraction of bytes
// that came back different: 0 when the transfer is correct.
func (t *transferInstance) Check() (float64, error) {
	buf, err := t.dev.Backend().BufferFromFlatData(0, t.host, t.shape)
	if err != nil {
		return 0, workloads.DeviceErr(err, "writing to %s", t.dev.Name)
	}
	defer func() { _ = buf.Finalize() }()
	back := make([]uint8, len(t.host))
	if err := buf.ToFlatData(back); err != nil {
		return 0, workloads.DeviceErr(err, "reading from %s", t.dev.Name)
	}
	var diff int
	for i := range back {
		if back[i] != t.host[i] {
			diff++
		}
	}
	return float64(diff) / float64(len(back)), nil
}

func (t *transferInstance) Close() {
	if t.buf != nil {
		_ = t.buf.Finalize()
		t.buf = nil
	}
}
