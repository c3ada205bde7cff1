package parallel

import (
	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// TestDataParallelEqualsSingleDevice checks the SPMD step over 2 and 4 devices against the
// single-device step on the whole batch.
func TestDataParallelEqualsSingleDevice(t *testing.T) {
	dev := devicetest.OpenDevices(t, devices.CPUSplit, 4)
	tests := []DataParallel{
		{MLP: workloads.MLP{Batch: 16, In: 8, Hidden: 16, Out: 4, Depth: 1, Type: dtypes.Float32, Seed: 3}, Devices: 2},
		{MLP: workloads.MLP{Batch: 64, In: 32, Hidden: 64, Out: 8, Depth: 2, Type: dtypes.Float32, Seed: 5}, Devices: 4},
	}
	for _, w := range tests {
		c, err := CompareSteps(dev, w)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Equal() || c.MaxRelDiff == 0 && c.LossSingle == 0 {
			t.Errorf("%s: max relative difference %g (tolerance %g)", w, c.MaxRelDiff, c.Tolerance)
		}
		if d := c.LossSingle - c.LossParallel; d > 1e-5*c.LossSingle || d < -1e-5*c.LossSingle {
			t.Errorf("%s: loss %g vs %g", w, c.LossSingle, c.LossParallel)
		}
		t.Logf("%s: max rel diff %.2g, loss %.5f", w, c.MaxRelDiff, c.LossSingle)
	}
}

func TestDataParallelValidate(t *testing.T) {
	dev := devicetest.Open(t, devices.CPUSplit)
	bad := []DataParallel{
		{MLP: workloads.MLP{Batch: 10, In: 4, Hidden: 4, Out: 2, Depth: 1, Type: dtypes.Float32}, Devices: 4},
		{MLP: workloads.MLP{Batch: 8, In: 4, Hidden: 4, Out: 2, Depth: 1, Type: dtypes.Float32}, Devices: 64},
		{MLP: workloads.MLP{Batch: 8, In: 4, Hidden: 4, Out: 2, Depth: 1, Type: dtypes.Float32, Optimizer: workloads.Adam}, Devices: 2},
	}
	for _, w := range bad {
		if err := w.Validate(dev); err == nil {
			t.Errorf("%s: no error", w)
		}
	}
}

func TestAllReduceTime(t *testing.T) {
	dev := devicetest.OpenDevices(t, devices.CPUSplit, 2)
	d, err := AllReduceTime(dev, 2, 1024, 3)
	if err != nil || len(d) != 3 || d[0] <= 0 {
		t.Fatalf("%v %v", d, err)
	}
	if _, err := AllReduceTime(dev, 1, 1024, 3); err == nil {
		t.Error("one device: no error")
	}
}
