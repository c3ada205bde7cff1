package exercise

import (
	"errors"
	"strings"
	"testing"
)

// ridgeBatch is a problem of the kind lessons ask: the ridge batch of a D = 8192 bf16 layer on an
// H200 (989 TFLOP/s dense BF16, 4.8 TB/s), from the datasheet.
var ridgeBatch = Problem{
	Key: "02/test-ridge-batch", Unit: "samples",
	Question: "At what batch does a D = 8192 bf16 layer stop being bandwidth-bound on an H200?",
	Hint:     "First the H200's ridge in FLOP per byte; then the layer's FLOPs per byte of weights, per sample.",
	Solve: func() (Solution, error) {
		ridge := 989e12 / 4.8e12
		return Solution{Value: ridge, Steps: []string{"ridge = 989 TFLOP/s ÷ 4.8 TB/s ≈ 206 FLOP/byte",
			"per sample: 2·D² FLOPs on 2·D² bytes of bf16 weights = 1 FLOP/byte per sample", "batch ≈ 206"}}, nil
	},
}

func TestProblemAttempts(t *testing.T) {
	if err := ridgeBatch.Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		answer float64
		want   ProblemStatus
		steps  bool
	}{
		{0, NotAttempted, false},
		{206, Close, true},
		{200, Close, true}, // within 5 %
		{100, Off, true},
		{-206, Off, true},
	}
	for _, tc := range tests {
		a := ridgeBatch.CheckAnswer(tc.answer)
		if a.Status != tc.want {
			t.Errorf("answer %v: %v, want %v (%s)", tc.answer, a.Status, tc.want, a.Headline())
		}
		text := a.Text()
		if got := strings.Contains(text, "989 TFLOP/s ÷ 4.8 TB/s"); got != tc.steps {
			t.Errorf("answer %v: worked steps shown %v, want %v:\n%s", tc.answer, got, tc.steps, text)
		}
		if got := strings.Contains(text, "Hint:"); got != (tc.want == Off) {
			t.Errorf("answer %v: hint shown %v:\n%s", tc.answer, got, text)
		}
	}
}

func TestProblemNeverFails(t *testing.T) {
	p := ridgeBatch
	p.Solve = func() (Solution, error) { return Solution{}, errors.New("run the sweep cell above first") }
	if a := p.CheckAnswer(3); a.Status != Unsolved || !strings.Contains(a.Text(), "run the sweep cell") {
		t.Errorf("missing measurement: %v\n%s", a.Status, a.Text())
	}
	p.Solve = func() (Solution, error) { panic("boom") }
	if a := p.CheckAnswer(3); a.Status != Unsolved || !strings.Contains(a.Text(), "panicked") {
		t.Errorf("panicking solution: %v\n%s", a.Status, a.Text())
	}
	p.Solve = func() (Solution, error) { return Solution{Value: 0}, nil }
	if a := p.CheckAnswer(3); a.Status != Unsolved {
		t.Errorf("a zero solution (a placeholder would match it): %v", a.Status)
	}
	if err := (Problem{Key: "x"}).Validate(); err == nil {
		t.Error("an empty problem validated")
	}
}

func TestRegisterIsNoRegistry(t *testing.T) {
	if got := Register(ridgeBatch); got.Key != ridgeBatch.Key {
		t.Error(got.Key)
	}
}
