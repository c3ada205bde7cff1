package workloads

import (
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// Helpers shared by the workloads' Prepare methods and instances.

// NewExecInstance uploads host (converted to dt) to dev and builds fn (named name) over it: the
// Instance of a workload that is one executable over fixed inputs, described by what in errors,
// whose Check runs check on the outputs. What it uploaded is freed when building fails.
func NewExecInstance[F graph.ExecGraphFn](dev *devices.Device, what, name string, dt dtypes.DType, host []HostInput, fn F,
	check func(outs []*tensors.Tensor) (float64, error)) (Instance, error) {
	ins, err := UploadAll(dev, dt, host)
	if err != nil {
		return nil, err
	}
	exec, err := NewExec(dev, name, fn)
	if err != nil {
		FinalizeAll(ins)
		return nil, err
	}
	return &execInstance{name: what + " on " + dev.Name, exec: exec, inputs: ins, check: check}, nil
}

// AgainstFirst is a check for newExecInstance: the relative error of the first output against
// want(), the float64 reference.
func AgainstFirst(want func() []float64) func(outs []*tensors.Tensor) (float64, error) {
	return func(outs []*tensors.Tensor) (float64, error) {
		got, err := toFloat64(outs[0])
		if err != nil {
			return 0, err
		}
		return relErr(got, want()), nil
	}
}

// RunSequence runs n executables one after another, as ElementwiseChain and TiedForward do unfused:
// step i gets the previous step's first output (x for the first step) and returns its outputs.
// Every intermediate output is freed as soon as the next step has run; the caller frees the result.
func RunSequence(x *tensors.Tensor, n int, name string, step func(i int, h *tensors.Tensor) ([]*tensors.Tensor, error)) (*tensors.Tensor, error) {
	cur := x
	for i := range n {
		outs, err := step(i, cur)
		if cur != x {
			_ = cur.FinalizeAll()
		}
		if err != nil {
			return nil, DeviceErr(err, "running %s", name)
		}
		cur = outs[0]
	}
	return cur, nil
}

// RunFreed runs once and frees the output: Instance.Run for a run that returns its output.
func RunFreed(run func() (*tensors.Tensor, error)) error {
	out, err := run()
	if err == nil {
		_ = out.FinalizeAll()
	}
	return err
}

// CheckRun runs once, reads the output to the host and returns its relative error against want:
// Instance.Check for a run that returns its output.
func CheckRun(run func() (*tensors.Tensor, error), want func() []float64) (float64, error) {
	out, err := run()
	if err != nil {
		return 0, err
	}
	defer out.FinalizeAll()
	return AgainstFirst(want)([]*tensors.Tensor{out})
}
