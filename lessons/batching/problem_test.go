package batching

import (
	"testing"

	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// 512 columns are 4 tiles of 128; 132 SMs need 33 rows of tiles, so more than 32·128 batch rows.
func TestProblemSMFill(t *testing.T) {
	s, err := ProblemSMFill.Solve()
	if err != nil {
		t.Fatal(err)
	}
	if s.Value != 4097 {
		t.Errorf("SM fill from batch %v, want 4097", s.Value)
	}
	for _, answer := range []float64{4096, 4097, 4224} {
		if a := ProblemSMFill.CheckAnswer(answer); a.Status != exercise.Close {
			t.Errorf("answer %v: %v, want right", answer, a.Status)
		}
	}
	if a := ProblemSMFill.CheckAnswer(132 * 128); a.Status != exercise.Off {
		t.Errorf("one tile row per SM accepted: %v", a.Status)
	}
}
