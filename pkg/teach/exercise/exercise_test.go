package exercise

import (
	"errors"
	"strings"
	"testing"
)

var ridge = Exercise{
	Key:       "xx/ridge",
	Task:      "the ridge point",
	Signature: "Ridge(peakFLOPs, bytesPerSec float64) float64",
	Unit:      "FLOP/byte",
	Cases:     []Case{{"a", []float64{1e12, 1e11}}, {"b", []float64{989e12, 4.8e12}}},
	Course:    func(x []float64) float64 { return x[0] / x[1] },
	Hint:      "FLOPs per byte",
	Answer:    "return peakFLOPs / bytesPerSec",
}

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   any
		want Status
		says string
	}{
		{"placeholder", func(p, b float64) float64 { return 0 }, Unanswered, "Not answered yet"},
		{"right", func(p, b float64) float64 { return p / b }, Right, "Right"},
		{"inverted", func(p, b float64) float64 { return b / p }, Wrong, "for a, Ridge(1e+12, 1e+11) gives 100 mFLOP/byte, the course's formula 10 FLOP/byte"},
		{"right once", func(p, b float64) float64 { return 10 }, Wrong, "for b"},
		{"int arguments", func(p, b int) float64 { return float64(p) / float64(b) }, Right, "Right"},
		{"int truncates", func(p, b int) int { return p / b }, Wrong, "for b"},
		{"panics", func(p, b float64) float64 { var s []float64; return s[int(p)] }, Wrong, "panicked"},
		{"infinite", func(p, b float64) float64 { return p / 0 }, Wrong, "+Inf"},
		{"nil", nil, Invalid, "no function given"},
		{"called, not passed", 3.0, Invalid, "want a function"},
		{"arity", func(p float64) float64 { return p }, Invalid, "takes 1 argument(s), the exercise gives 2"},
		{"returns two", func(p, b float64) (float64, error) { return 0, nil }, Invalid, "(float64, error)"},
		{"string argument", func(p string, b float64) float64 { return 0 }, Invalid, "argument 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ridge.Check(tc.fn)
			if r.Status != tc.want {
				t.Fatalf("status %v, want %v (%s)", r.Status, tc.want, r.Headline())
			}
			txt := r.Text()
			if !strings.Contains(txt, tc.says) {
				t.Errorf("text lacks %q:\n%s", tc.says, txt)
			}
			if !strings.Contains(txt, ridge.Answer) {
				t.Errorf("text lacks the worked answer:\n%s", txt)
			}
			if hint := strings.Contains(txt, "Hint: "); hint != (tc.want == Wrong || tc.want == Invalid) {
				t.Errorf("hint shown %v for status %v", hint, tc.want)
			}
		})
	}
}

func TestVersus(t *testing.T) {
	mine := func(p, b float64) float64 { return p / b }
	for _, tc := range []struct {
		name     string
		measured func() (Measurement, error)
		fn       any
		says     string
	}{
		{"measured", func() (Measurement, error) {
			return Measurement{Case: Case{"xla:cpu", []float64{2e11, 1e10}}, Value: 10, What: "your sweep", Note: "a model is not the machine"}, nil
		}, mine, "your formula gives 20 FLOP/byte, measured 10 FLOP/byte (measured / formula = 0.5). a model"},
		{"inputs only", func() (Measurement, error) {
			return Measurement{Case: Case{"xla:cpu", []float64{2e11, 1e10}}, What: "your ceilings"}, nil
		}, mine, "With your measurement (your ceilings, xla:cpu): your formula gives 20 FLOP/byte."},
		{"not measured yet", func() (Measurement, error) { return Measurement{}, errors.New("run the sweep cell first") }, mine,
			"Against your measurement: run the sweep cell first"},
		{"panics at the measured inputs", func() (Measurement, error) {
			return Measurement{Case: Case{"xla:cpu", []float64{2e11, 1e10}}, Value: 10, What: "your sweep"}, nil
		}, func(p, b float64) float64 {
			if p > 1e10 {
				panic("too big")
			}
			return p / b
		}, "Against your measurement (your sweep, xla:cpu): your function panicked (too big)."},
		{"placeholder: no measurement line", func() (Measurement, error) { t.Fatal("measured for a placeholder"); return Measurement{}, nil },
			func(p, b float64) float64 { return 0 }, "Not answered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := ridge
			e.Measured = tc.measured
			if txt := e.Check(tc.fn).Text(); !strings.Contains(txt, tc.says) {
				t.Errorf("text lacks %q:\n%s", tc.says, txt)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	if err := ridge.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*Exercise)
		says string
	}{
		{"no course", func(e *Exercise) { e.Course = nil }, "no course formula"},
		{"no cases", func(e *Exercise) { e.Cases = nil }, "no cases"},
		{"no hint", func(e *Exercise) { e.Hint = "" }, "hint"},
		{"ragged", func(e *Exercise) { e.Cases = append(e.Cases, Case{"c", []float64{1}}) }, "has 1 arguments"},
		{"zero answer", func(e *Exercise) { e.Cases = []Case{{"z", []float64{0, 1}}} }, "placeholder 0 is wrong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := ridge
			tc.edit(&e)
			if err := e.Validate(); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("Validate() = %v, want %q", err, tc.says)
			}
		})
	}
}
