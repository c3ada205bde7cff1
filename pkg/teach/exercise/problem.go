package exercise

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/gpu-course/whygpu/pkg/support/panics"
)

// DefaultProblemTolerance is the relative difference within which a learner's answer to a Problem
// counts as right: worked on paper with rounded numbers, 5 % is close enough.
const DefaultProblemTolerance = 0.05

// Problem is an applied problem: two or more steps of arithmetic on real numbers (a datasheet's or
// the learner's own measurement), answered with one number. Its answer is computed by Solve, never
// typed in, and its worked steps are shown only after an attempt. The formula is not printed above
// the cell (whygpu check fails a notebook where it is).
type Problem struct {
	Key       string  // lesson-qualified, e.g. "02/ridge-batch-h200"
	Question  string  // the problem, in words, with the numbers the learner needs (or where to find them)
	Unit      string  // what the answer counts: "GB/s", "ms", "samples", "workers"
	Tolerance float64 // relative; 0 means DefaultProblemTolerance
	Hint      string  // shown under a wrong answer, before the worked steps: the first step, not the formula
	// Formula is the relation the learner must find, as prose would print it ("peak ÷ bandwidth",
	// "2·B·D·H"): `whygpu check` fails the lesson's notebook if it appears in Markdown above its
	// problem cells (spacing, ×/*/· and ÷/"/" do not matter). Empty: not checked.
	Formula string
	// Solve computes the answer and the worked steps, each with its numbers. An error (a measurement
	// not made yet: say which cell to run) is shown as a note, never as a failure of the cell.
	Solve func() (Solution, error)
}

// Solution is a problem's answer and its worked steps.
type Solution struct {
	Value float64
	Steps []string // each step with its numbers, e.g. "ridge = 989 TFLOP/s ÷ 4.8 TB/s ≈ 206 FLOP/byte"
}

// ProblemStatus is the outcome of an attempt.
type ProblemStatus int

const (
	NotAttempted ProblemStatus = iota // the answer is still 0: no reveal
	Off                               // outside the tolerance: a hint and the worked steps
	Close                             // within the tolerance: the worked steps to compare
	Unsolved                          // the course could not compute the answer (a measurement not made yet)
)

func (s ProblemStatus) String() string {
	return [...]string{"not attempted", "not yet right", "right", "needs a measurement first"}[s]
}

// Attempt is what CheckAnswer found: the learner's answer next to the course's solution.
type Attempt struct {
	Problem
	Status   ProblemStatus
	Answer   float64
	Solution Solution // empty when NotAttempted or Unsolved
	Err      error    // Unsolved: why (which cell to run)
}

// Validate reports a problem that cannot be checked (a course mistake, found by tests).
func (p Problem) Validate() error {
	var errs []error
	if !problemKey.MatchString(p.Key) {
		errs = append(errs, fmt.Errorf("key %q: want NN/words (the lesson's number, a slash, letters, digits or '-')", p.Key))
	}
	if strings.TrimSpace(p.Question) == "" || strings.TrimSpace(p.Hint) == "" || p.Unit == "" {
		errs = append(errs, errors.New("needs a question, a hint and a unit"))
	}
	if p.Solve == nil {
		errs = append(errs, errors.New("no Solve"))
	}
	if p.Tolerance < 0 || p.Tolerance >= 1 {
		errs = append(errs, fmt.Errorf("tolerance %g: want a relative tolerance in [0, 1)", p.Tolerance))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("exercise: problem %q: %w", p.Key, err)
	}
	return nil
}

var problemKey = regexp.MustCompile(`^\d\d/[a-z0-9-]+$`)

// Lesson is the problem's lesson number, "02".
func (p Problem) Lesson() string { l, _, _ := strings.Cut(p.Key, "/"); return l }

// solve calls Solve, turning a panic or a solution that a placeholder 0 would match into an error.
func (p Problem) solve() (s Solution, err error) {
	if p.Solve == nil {
		return s, fmt.Errorf("exercise: problem %s has no Solve", p.Key)
	}
	defer panics.Catch(&err, "exercise: problem %s: the course's solution panicked", p.Key)
	s, err = p.Solve()
	if err == nil && (s.Value == 0 || math.IsNaN(s.Value) || math.IsInf(s.Value, 0)) {
		err = fmt.Errorf("exercise: problem %s: the course's solution is %v", p.Key, s.Value)
	}
	return s, err
}

// CheckAnswer sets the learner's answer against the course's solution. 0 means not attempted: no
// solution is revealed. It never panics and never fails: a missing measurement is Unsolved with
// the error saying which cell to run.
func (p Problem) CheckAnswer(answer float64) Attempt {
	a := Attempt{Problem: p, Answer: answer}
	if answer == 0 || math.IsNaN(answer) {
		a.Status = NotAttempted
		return a
	}
	s, err := p.solve()
	if err != nil {
		a.Status, a.Err = Unsolved, err
		return a
	}
	a.Solution = s
	tol := p.Tolerance
	if tol == 0 {
		tol = DefaultProblemTolerance
	}
	if agree(answer, s.Value, tol) {
		a.Status = Close
	} else {
		a.Status = Off
	}
	return a
}

// Headline is the attempt's one-line verdict.
func (a Attempt) Headline() string {
	switch a.Status {
	case NotAttempted:
		return fmt.Sprintf("Not attempted yet: work it out on paper, set `answer` (in %s) and run the cell again. The worked answer appears after you try.", a.Unit)
	case Unsolved:
		return "Your answer is " + Num(a.Answer, a.Unit) + "; the course's needs a measurement first — " + a.Err.Error()
	case Close:
		return fmt.Sprintf("Right: %s, the worked answer is %s.", Num(a.Answer, a.Unit), Num(a.Solution.Value, a.Unit))
	}
	return fmt.Sprintf("Not yet: you answered %s, the worked answer is %s (%s× yours). Read the hint, then the steps.",
		Num(a.Answer, a.Unit), Num(a.Solution.Value, a.Unit), fmt.Sprintf("%.3g", a.Solution.Value/a.Answer))
}

// Text is the attempt in plain text: the question, the verdict, the hint after a wrong answer and
// the worked steps after any attempt (headless runs and text views read this).
func (a Attempt) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Problem: %s\n%s\n", oneLine(a.Question), a.Headline())
	if a.Status == Off {
		fmt.Fprintf(&b, "Hint: %s\n", a.Hint)
	}
	if a.Status == Off || a.Status == Close {
		b.WriteString("Worked answer:\n")
		for i, s := range a.Solution.Steps {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, s)
		}
	}
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Register returns p unchanged. It registers nothing (the course has no global registries, issue
// 36): list the problem in lessons/all.Problems, whose tests check every problem and every notebook
// cell that shows one. Kept so that `var P = exercise.Register(exercise.Problem{…})` still compiles.
//
// Deprecated: write `var P = exercise.Problem{…}` and add it to lessons/all.Problems.
func Register(p Problem) Problem { return p }
