package workloads

// Tests that reach inside an execInstance: the rest of this directory's tests are external
// (package workloads_test), so that they can run the families' workloads too.

import (
	"strings"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// A direct call refuses an argument of the wrong shape (go-xla checks only the dtype) and the wrong
// number of arguments, and frees what it was to donate when it refuses.
func TestDirectRefusesWrongArguments(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	inst, err := MatMul{M: 8, K: 8, N: 8, Type: dtypes.Float32}.Prepare(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	e := inst.(*execInstance)
	if err := e.compile(); err != nil {
		t.Fatal(err)
	}
	other, err := CastOnDevice(dev, make([]float32, 8*4), dtypes.Float32, 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := takeBuffer(other)
	if err != nil {
		t.Fatal(err)
	}
	d := *e.call // a copy: the instance's own call stays checked
	d.checked = false
	d.donate = []bool{true, false}
	_, err = d.call([]compute.Buffer{b, e.bufs[1]})
	if err == nil || !strings.Contains(err.Error(), "compiled for") {
		t.Errorf("wrong shape: %v", err)
	}
	if _, err := b.Shape(); err == nil {
		t.Errorf("the donated argument of a refused call was not freed")
	}
	if _, err := d.call([]compute.Buffer{e.bufs[0]}); err == nil || !strings.Contains(err.Error(), "takes 2 arguments, got 1") {
		t.Errorf("wrong count: %v", err)
	}
}

// TestCheckDetectsWrongResults makes sure Check is not vacuous: a subtly wrong kernel (off by 1e-3)
// behind the same inputs and reference fails it.
func TestCheckDetectsWrongResults(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	inst, err := MatMul{M: 16, K: 16, N: 16, Type: dtypes.Float32}.Prepare(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	ei := inst.(*execInstance)
	ei.exec.Finalize()
	if ei.exec, err = NewExec(dev, "wrong", func(x, y *graph.Node) *graph.Node {
		return graph.AddScalar(graph.MatMul(x, y), 1e-3)
	}); err != nil {
		t.Fatal(err)
	}
	e, err := inst.Check()
	if err != nil {
		t.Fatal(err)
	}
	if e <= Tolerance(dtypes.Float32) {
		t.Errorf("a wrong kernel passed Check: relative error %g", e)
	}
}
