package workloads

import (
	"errors"
	"github.com/gpu-course/whygpu/internal/devicetest"
	"testing"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// TestAllocate allocates small buffers for real (they fit) and refuses impossible sizes before
// asking the device. A refusal by a device, wrapped with ErrOutOfMemory, needs a GPU: on the CPU
// devices asking for more than the RAM can kill the process instead.
func TestAllocate(t *testing.T) {
	for _, tc := range []struct {
		dev        string
		rows, cols int
		ok         bool
	}{
		{devices.CPU, 1, 1, true},
		{devices.CPU, 256, 1024, true},
		{devices.Go, 16, 16, true},
		{devices.CPU, 0, 1024, false},
		{devices.Go, 16, -1, false},
	} {
		err := Allocate(devicetest.Open(t, tc.dev), tc.rows, tc.cols)
		if (err == nil) != tc.ok || errors.Is(err, ErrOutOfMemory) {
			t.Errorf("%s %d×%d: %v, want ok %v (and never out of memory)", tc.dev, tc.rows, tc.cols, err, tc.ok)
		}
	}
}
