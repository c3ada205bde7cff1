package precision

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// exerciseTypes are the element types of ExerciseBytes's cases, by their size in bytes.
var exerciseTypes = map[float64]dtypes.DType{2: dtypes.BFloat16, 4: dtypes.Float32, 8: dtypes.Float64}

// ExerciseBytes is lesson 05's formula for the learner: the bytes an n×n matmul moves at a given
// element size, checked against workloads.MatMul.Bytes and set against the learner's own bfloat16
// and float32 matmuls on xla:cpu (the throughput cell's kept results).
var ExerciseBytes = exercise.Exercise{
	Key:       "05/matmul-bytes",
	Task:      "the bytes an n×n by n×n matmul must move at least (read both inputs, write the output), with elements of a given size in bytes.",
	Signature: "MatMulBytes(n, bytesPerElement float64) float64",
	Unit:      "bytes",
	Cases: []exercise.Case{
		{Name: "n=4096, bfloat16", Args: []float64{4096, 2}},
		{Name: "n=4096, float32", Args: []float64{4096, 4}},
		{Name: "n=512, float64", Args: []float64{512, 8}},
	},
	Course: func(x []float64) float64 {
		n := int(x[0])
		return workloads.MatMul{M: n, K: n, N: n, Type: exerciseTypes[x[1]]}.Bytes()
	},
	Hint:     "three n×n matrices cross memory: A and B are read, C is written.",
	Answer:   "return 3 * n * n * bytesPerElement",
	Measured: measuredBytes,
	Why:      "Halving the element size halves the bytes at the same FLOPs and doubles the intensity: a memory-bandwidth-bound op can run up to twice as fast, while a compute-bound matmul gains from the faster 16-bit tensor-core math instead.",
}

// measuredBytes takes the side and bfloat16's element size from the learner's kept matmuls on
// xla:cpu; bytes are not measured, so the note sets the bytes against the two measured times.
func measuredBytes() (exercise.Measurement, error) {
	rs, err := predict.Kept(KeepDTypes, devices.CPU)
	if err != nil {
		return exercise.Measurement{}, err
	}
	f32, bf16 := pick(rs, "float32"), pick(rs, "bfloat16")
	if f32 == nil || bf16 == nil || f32.Seconds() <= 0 {
		return exercise.Measurement{}, fmt.Errorf("%s: the kept matmuls lack float32 or bfloat16 on %s: run the throughput cell with both", Lesson, devices.CPU)
	}
	n := float64(bf16.Params["n"]) // square: m = k = n
	return exercise.Measurement{
		Case: exercise.Case{Name: fmt.Sprintf("bfloat16, n=%d", int(n)), Args: []float64{n, 2}},
		What: "your matmuls on " + devices.CPU,
		Note: fmt.Sprintf("Measured: bfloat16 took %s, float32 (twice the bytes) %s: half the bytes changed the time by %s×.",
			units.SI(bf16.Seconds(), "s"), units.SI(f32.Seconds(), "s"), units.Sig3(bf16.Seconds()/f32.Seconds())),
	}, nil
}
