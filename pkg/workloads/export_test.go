package workloads

import (
	"testing"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// Hooks for this directory's external tests (package workloads_test): they run the families'
// workloads (membound, launch, gpt import this package) beside the base ones, which only an
// external test can.

// DirectAndExec runs inst's one executable directly (the timed path) and through graph.Exec; ok is
// false when inst is not one executable over fixed inputs. The caller frees both outputs.
func DirectAndExec(inst Instance) (direct, viaExec []*tensors.Tensor, ok bool, err error) {
	e, ok := inst.(*execInstance)
	if !ok {
		return nil, nil, false, nil
	}
	if direct, err = e.directOutputs(); err != nil {
		return nil, nil, true, err
	}
	viaExec, err = e.exec.Exec(e.inputs...)
	return direct, viaExec, true, err
}

// ToFloat64 is a tensor's values as float64.
var ToFloat64 = toFloat64

// Compiled prepares w on dev and compiles it, failing the test otherwise; the instance is closed
// when the test ends.
func Compiled(tb testing.TB, dev *devices.Device, w Workload) Instance {
	tb.Helper()
	inst, err := w.Prepare(dev)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(inst.Close)
	if _, err := inst.Compile(); err != nil {
		tb.Fatal(err)
	}
	return inst
}
