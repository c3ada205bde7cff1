package roofline

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// ProblemRidgeBatch is lesson 02's applied problem: the ridge batch of a D = 8192 bfloat16 layer on an
// H200, from its datasheet. The learner needs the ridge point and the layer's intensity as a function
// of B; neither formula is printed in the notebook.
var ProblemRidgeBatch = exercise.Problem{
	Key: "02/ridge-batch-h200-8192",
	Question: "An H200 does 989 TFLOP/s of dense bf16 matmul and reads its HBM at 4.8 TB/s (datasheet). A layer multiplies " +
		"a B×8192 bf16 batch by an 8192×8192 bf16 weight matrix. From what batch B on is its matmul compute-bound? (rows)",
	Unit:      "rows",
	Formula:   "2·B ÷ element size",
	Tolerance: 0.08, // the weights-only shortcut (B ≈ ridge) is 5 % under the full count: both are right
	Hint:      "First the H200's ridge point in bf16 (FLOP per byte). Then the layer's FLOPs and bytes as functions of B: while B is much smaller than 8192, which bytes dominate?",
	Solve:     solveRidgeBatch,
}

func solveRidgeBatch() (exercise.Solution, error) {
	c := sheet(H200)
	peak, bw := c.Peak("bfloat16"), c.BandwidthBytes
	if peak == 0 || bw == 0 {
		return exercise.Solution{}, fmt.Errorf("%s: the datasheet table has no H200 bf16 row", Lesson)
	}
	const d, elem = 8192, 2.0
	ridge := peak / bw
	b := RidgeBatch(ridge, d, elem)
	return exercise.Solution{Value: b, Steps: []string{
		fmt.Sprintf("Ridge point: %.0f TFLOP/s ÷ %.1f TB/s ≈ %.0f FLOP/byte.", peak/1e12, bw/1e12, ridge),
		fmt.Sprintf("The layer does 2·B·%d² FLOPs and moves %g bytes per element of the weights (%d², read once) and of the activations in and out (2·B·%d).", d, elem, d, d),
		fmt.Sprintf("While B ≪ %d the weights dominate: intensity ≈ 2·B·%d² ÷ (%g·%d²) = B FLOP/byte, so B ≈ %.0f rows.", d, d, elem, d, ridge),
		fmt.Sprintf("Counting the activations too, 2·B·%d² ÷ (%g·(%d² + 2·B·%d)) = %.0f gives B ≈ %.0f rows: past about %.0f rows the layer is compute-bound; below, memory-bandwidth-bound.", d, elem, d, d, ridge, b, b),
	}}, nil
}
