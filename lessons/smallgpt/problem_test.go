package smallgpt

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// The problem's worked answer: GPT-2 small's step on an H100 at 40% MFU, attention included, is
// about 140 ms; 6·N·T alone would be about 120 ms, which the problem's tolerance rejects.
func TestProblemStep(t *testing.T) {
	c := GPT2Small
	want := 1e3 * c.FLOPs() / (0.4 * 989e12)
	if want < 120 || want > 160 {
		t.Errorf("GPT-2 small's step at 40%% MFU: %.0f ms, want about 140", want)
	}
	a := ProblemStep.CheckAnswer(want)
	if a.Status != exercise.Close || math.Abs(a.Solution.Value-want) > 1e-9 || len(a.Solution.Steps) < 4 {
		t.Errorf("%+v", a)
	}
	if a := ProblemStep.CheckAnswer(1e3 * c.SixNT() / (0.4 * 989e12)); a.Status != exercise.Off {
		t.Errorf("6·N·T alone must be off: %v", a.Status)
	}
	if !strings.Contains(ProblemStep.Question, "MFU") {
		t.Error(ProblemStep.Question)
	}
}
