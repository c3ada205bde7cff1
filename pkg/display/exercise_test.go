package display

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/exercise"
)

func TestExerciseHTML(t *testing.T) {
	e := exercise.Exercise{
		Key: "xx/double", Task: "twice x", Signature: "Double(x float64) float64", Unit: "FLOP",
		Cases:  []exercise.Case{{Name: "x=1", Args: []float64{1}}, {Name: "x=<3>", Args: []float64{3}}},
		Course: func(x []float64) float64 { return 2 * x[0] },
		Hint:   "add x to itself", Answer: "return 2 * x", Why: "doubling",
	}
	for _, tc := range []struct {
		name string
		fn   any
		has  []string
		not  []string
	}{
		{"unanswered", func(x float64) float64 { return 0 }, []string{`data-status="not answered yet"`, "Not answered yet", "<details>", "return 2 * x"}, []string{"Hint:"}},
		{"wrong", func(x float64) float64 { return 2 }, []string{"Hint:", "x=&lt;3&gt;", "✗", "✓"}, nil},
		{"right", func(x float64) float64 { return x + x }, []string{"Right:"}, []string{"Hint:"}},
		{"invalid", "Double", []string{"does not fit", "Hint:"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := exerciseHTML(e.Check(tc.fn))
			for _, s := range append(tc.has, `class="whygpu-exercise"`) {
				if !strings.Contains(h, s) {
					t.Errorf("HTML lacks %q:\n%s", s, h)
				}
			}
			// The notebook tests read these as failures: a learner's answer is never one.
			for _, s := range append(tc.not, "whygpu-error", "gonb-err") {
				if strings.Contains(h, s) {
					t.Errorf("HTML has %q:\n%s", s, h)
				}
			}
		})
	}
}
