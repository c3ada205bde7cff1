package roofline

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// The ridge batch of a D = 8192 bf16 layer on an H200: about 217 rows counting the activations, and
// the weights-only shortcut (B ≈ the ridge, ≈ 206) is accepted too.
func TestProblemRidgeBatch(t *testing.T) {
	s, err := ProblemRidgeBatch.Solve()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(s.Value-217) > 1 {
		t.Errorf("ridge batch %v, want about 217", s.Value)
	}
	ridge := sheet(H200).Ridge("bfloat16")
	for _, answer := range []float64{ridge, 217, 220} {
		if a := ProblemRidgeBatch.CheckAnswer(answer); a.Status != exercise.Close {
			t.Errorf("answer %v: %v, want right", answer, a.Status)
		}
	}
	if a := ProblemRidgeBatch.CheckAnswer(345); a.Status != exercise.Off || !strings.Contains(a.Text(), "Hint:") {
		t.Errorf("D = 1024's ridge batch accepted for D = 8192: %v", a.Status)
	}
	if len(s.Steps) < 3 {
		t.Errorf("%d worked steps", len(s.Steps))
	}
}
