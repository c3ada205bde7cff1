package display

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/teach/exercise"
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

func TestProblemHTML(t *testing.T) {
	p := exercise.Problem{Key: "xx/p", Unit: "ms", Question: "How long is <it>?", Hint: "start with the bytes",
		Solve: func() (exercise.Solution, error) {
			return exercise.Solution{Value: 3, Steps: []string{"14 GB ÷ 4.8 TB/s ≈ 2.9 ms"}}, nil
		}}
	for _, tc := range []struct {
		answer float64
		has    []string
		not    []string
	}{
		{0, []string{`data-status="not attempted"`, "Not attempted yet", "How long is &lt;it&gt;?"}, []string{"Hint:", "4.8 TB/s", "<details>"}},
		{1, []string{"Hint:", "Not yet", "<details>", "4.8 TB/s"}, nil},
		{3, []string{"Right:", "4.8 TB/s"}, []string{"Hint:"}},
	} {
		h := problemHTML(p.CheckAnswer(tc.answer))
		for _, s := range append(tc.has, `class="whygpu-problem"`) {
			if !strings.Contains(h, s) {
				t.Errorf("answer %v: HTML lacks %q:\n%s", tc.answer, s, h)
			}
		}
		for _, s := range append(tc.not, "whygpu-error", "gonb-err") {
			if strings.Contains(h, s) {
				t.Errorf("answer %v: HTML has %q:\n%s", tc.answer, s, h)
			}
		}
	}
}
