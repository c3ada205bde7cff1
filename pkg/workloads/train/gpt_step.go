package train

import (
	"errors"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	mltrain "github.com/gomlx/gomlx/ml/train"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/panics"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// errCompileOnly stops GoMLX's trainer after it built the step's executable and before it runs it.
var errCompileOnly = errors.New("train: compile only")

// CompileGPTStep compiles one training step of c on dev, the step GPTTrainer.Step runs (the model, its
// cross-entropy, Adam's update and the trainer's loss metrics, from GoMLX's own train.Trainer),
// without running it: no parameter is created and nothing is allocated but XLA's compile, so the
// step's size does not matter (a GPU-scale model compiles on a laptop's CPU). It returns the
// compiled graph, for pkg/measure/hlo to read what XLA made of it (its kernels, its planned memory).
//
// name, if not "", names the step's executable (pkg/measure/hlo.DumpName gives a name XLA dumps the
// optimized HLO of). Call done once g has been read: it releases the compiled executable.
func CompileGPTStep(dev *devices.Device, c gpt.GPT, name string) (g *graph.Graph, done func(), err error) {
	if err := c.Validate(); err != nil {
		return nil, nil, err
	}
	t, err := newGPTTrainer(dev, c)
	if err != nil {
		return nil, nil, err
	}
	var step *model.Exec
	t.trainer.OnExecCreation(func(e *model.Exec, kind mltrain.GraphType) {
		if kind == mltrain.TrainType && step == nil {
			step = e
			if name != "" {
				e.WithName(name)
			}
			panic(errCompileOnly) // GoMLX's trainer would run the step next; stop it here
		}
	})
	// The trainer builds its step's executable on the first batch it sees: give it one of the
	// step's shapes, and stop it before it runs.
	batch := mltrain.Batch{
		Inputs: []*tensors.Tensor{tensors.FromShape(shapes.Make(dtypes.Int32, c.Batch, c.Context))},
		Labels: []*tensors.Tensor{tensors.FromShape(shapes.Make(dtypes.Int32, c.Batch, c.Context, 1))},
	}
	func() {
		defer panics.Catch(&err, "")
		_, err = t.trainer.TrainStep(batch)
	}()
	if errors.Is(err, errCompileOnly) {
		err = nil
	}
	if step == nil {
		if err == nil {
			err = errors.New("GoMLX's trainer built no step")
		}
		return nil, nil, workloads.DeviceError("train", err, "building the %s step on %s", c, dev.Name)
	}
	func() {
		defer panics.Catch(&err, "")
		g, err = step.Compile(batch.Inputs[0].Shape(), batch.Labels[0].Shape())
	}()
	if err != nil {
		step.Finalize()
		return nil, nil, workloads.DeviceError("train", err, "compiling the %s step on %s", c, dev.Name)
	}
	return g, step.Finalize, nil
}
