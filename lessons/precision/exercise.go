package precision

import (
	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/exercise"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// exerciseTypes are the element types of ExerciseBytes's cases, by their size in bytes.
var exerciseTypes = map[float64]dtypes.DType{2: dtypes.BFloat16, 4: dtypes.Float32, 8: dtypes.Float64}

// ExerciseBytes is lesson 05's formula for the learner: the bytes an n×n matmul moves at a given
// element size, checked against workloads.MatMul.Bytes.
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
	Hint:   "three n×n matrices cross memory: A and B are read, C is written.",
	Answer: "return 3 * n * n * bytesPerElement",
	Why:    "Halving the element size halves the bytes at the same FLOPs and doubles the intensity: a memory-bandwidth-bound op can run up to twice as fast, while a compute-bound matmul gains from the faster 16-bit tensor-core math instead.",
}
