package precision

import (
	"fmt"
	"math"

	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// ProblemLossScale is lesson 05's applied problem: from the learner's own gradient study, the
// smallest power-of-two loss scale that lifts the trained model's smallest weight gradient to
// float16's smallest normal number (where it keeps all 11 significant bits).
var ProblemLossScale = exercise.Problem{
	Key: "05/loss-scale",
	Question: "Your study printed, under its chart, the trained model's smallest non-zero weight gradient. " +
		"Loss scales are powers of two. What is the smallest scale S that lifts that gradient to at least " +
		"float16's smallest normal number, 2⁻¹⁴ ≈ 6.1e-5, so it keeps all its significant bits?",
	Unit:    "×",
	Formula: "2⁻¹⁴ ÷ g",
	Hint:    "first find how many times too small the gradient is; then round up to a power of two.",
	Solve:   solveLossScale,
}

// smallestNormal16 is float16's smallest normal number, 2⁻¹⁴.
var smallestNormal16 = math.Ldexp(1, -14)

func solveLossScale() (exercise.Solution, error) {
	study, err := RecallStudy()
	if err != nil {
		return exercise.Solution{}, fmt.Errorf("%s: no gradient study kept yet: run the study cell of \"float16 underflow\" first (%v)", Lesson, err)
	}
	_, last, ok := weightRows(study, 1)
	if !ok || last.c.MinAbs <= 0 {
		return exercise.Solution{}, fmt.Errorf("%s: the kept study has no non-zero weight gradient: run the study cell of \"float16 underflow\" again", Lesson)
	}
	g := last.c.MinAbs
	short := smallestNormal16 / g
	k := max(0, int(math.Ceil(math.Log2(short))))
	s := math.Ldexp(1, k)
	verdict := "GradScaler's starting scale, 2¹⁶ = 65,536, is enough"
	if k > 16 {
		verdict = "more than GradScaler's starting 2¹⁶: it would grow S over clean steps, if no large gradient overflows first"
	}
	return exercise.Solution{Value: s, Steps: []string{
		fmt.Sprintf("Your smallest weight gradient after %d steps: %.3g.", last.steps, g),
		fmt.Sprintf("How far below float16's smallest normal: 6.10e-5 ÷ %.3g ≈ %.3g×.", g, short),
		fmt.Sprintf("The next power of two: S = 2^%d = %.0f; %s.", k, s, verdict),
	}}, nil
}
