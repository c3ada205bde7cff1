package batching

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// ExerciseIntensity is lesson 03's formula for the learner: the arithmetic intensity of a layer's
// float32 matmul at batch B, checked against workloads.MatMul's FLOPs and bytes.
var ExerciseIntensity = exercise.Exercise{
	Key:       "03/intensity",
	Task:      "the arithmetic intensity (FLOPs per byte moved) of a float32 B×D by D×D matmul: a dense layer of width D at batch B.",
	Signature: "Intensity(batch, width float64) float64",
	Unit:      "FLOP/byte",
	Cases: []exercise.Case{
		{Name: "B=1, D=512", Args: []float64{1, 512}},
		{Name: "B=64, D=512", Args: []float64{64, 512}},
		{Name: "B=1024, D=1024", Args: []float64{1024, 1024}},
	},
	Course: func(x []float64) float64 {
		w := workloads.MatMul{M: int(x[0]), K: int(x[1]), N: int(x[1]), Type: dtypes.Float32}
		return w.FLOPs() / w.Bytes()
	},
	Hint:     "FLOPs: 2·B·D·D. Bytes: read the B×D activations and the D×D weights, write the B×D outputs, 4 bytes each.",
	Answer:   "return 2 * batch * width * width / (4 * (batch*width + width*width + batch*width))",
	Why:      "For B ≪ D it is about B/2: every weight read is used once per sample, so the batch, not the width, lifts a layer from memory-bandwidth-bound to compute-bound.",
	Measured: intensityMeasured,
}

// intensityMeasured sets the learner's formula against their wide batch sweep: the inputs are the
// batch at which their xla:cpu step first took twice its batch-1 time (where it stops being
// overhead-bound) and the wide width; the value is this CPU's measured ridge when lesson 02's
// ceilings were measured (kept with the results), so measured / formula says how far that batch's
// matmul sits from the ridge.
func intensityMeasured() (exercise.Measurement, error) {
	rs, err := predict.Kept(KeepName(fmt.Sprintf("batch-%d", Wide)), devices.CPU)
	if err != nil {
		return exercise.Measurement{}, err
	}
	cpu := liveCPU(rs)
	b, err := DoublingBatch(cpu)
	if err != nil {
		return exercise.Measurement{}, err
	}
	m := exercise.Measurement{
		Case: exercise.Case{Name: fmt.Sprintf("B=%d (where your step first took twice its batch-1 time), D=%d", b, Wide), Args: []float64{float64(b), Wide}},
		What: fmt.Sprintf("your hidden-%d batch sweep on %s", Wide, devices.CPU),
	}
	if r := cpu[0]; r.CeilingBytesPerSec > 0 {
		m.Value = r.CeilingFLOPS / r.CeilingBytesPerSec
		m.What += " and its measured ridge (FLOP/byte)"
		m.Note = "Measured / formula near 1: the step stopped being nearly free about where its matmul reached the ridge. Far from 1: the step's other costs (tanh, the update, fixed overhead) and the caches moved the knee."
	} else {
		m.Note = "Lesson 02's cell that measures this machine's ceilings sets this intensity against your ridge point."
	}
	return m, nil
}
