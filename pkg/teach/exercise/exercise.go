package exercise

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/gpu-course/whygpu/pkg/support/units"
)

// DefaultTolerance is the relative difference within which a learner's value counts as the course's.
const DefaultTolerance = 1e-6

// Exercise is one formula for the learner to write.
type Exercise struct {
	Key       string                    // lesson-qualified, e.g. "02/ridge"
	Task      string                    // what the function computes, in words
	Signature string                    // as the cell declares it: "Ridge(peakFLOPs, bytesPerSec float64) float64"
	Unit      string                    // what the result counts: "FLOP/byte", "s", "bytes"
	Cases     []Case                    // inputs the learner's function is checked on
	Course    func(x []float64) float64 // the course's formula (the lesson's or pkg's own function), same arguments
	Tolerance float64                   // relative; 0 means DefaultTolerance
	Hint      string                    // shown under a wrong answer
	Answer    string                    // the worked answer: the function's body, shown behind a fold
	Why       string                    // one line on what the formula means, shown with the worked answer
	// Measured, when set, returns inputs taken from what this learner measured in an earlier cell and
	// the value measured for them, so the learner's formula is set against the machine. An error
	// (a measurement not made yet) is shown as a note, not as a failure.
	Measured func() (Measurement, error)
}

// Case is one set of inputs, in the order of the function's parameters.
type Case struct {
	Name string    // what these inputs are: "H200, bf16"
	Args []float64 // converted to the parameter's kind (an int parameter gets an integer)
}

// Measurement is what the learner measured: the inputs for the formula, the measured value, and
// what it is.
type Measurement struct {
	Case
	Value float64 // measured, in Unit; 0 when only the inputs are measured (the formula's result is then shown as what they imply)
	What  string  // "your batch sweep on xla:cpu"
	Note  string  // why formula and measurement may differ (a model is not the machine)
}

// Call is the case as a call of the learner's function: "Ridge(9.89e+14, 4.8e+12)".
func (c Case) Call(signature string) string {
	a := make([]string, len(c.Args))
	for i, v := range c.Args {
		a[i] = strconv.FormatFloat(v, 'g', 4, 64)
	}
	return name(signature) + "(" + strings.Join(a, ", ") + ")"
}

// Status is the outcome of a check.
type Status int

const (
	Unanswered Status = iota // the placeholder still returns 0
	Wrong                    // a value differs from the course's formula
	Right                    // every case agrees with the course's formula
	Invalid                  // not a function of the asked shape (or none given)
)

func (s Status) String() string {
	return [...]string{"not answered yet", "not yet right", "right", "not a function of the asked shape"}[s]
}

// Row is one case: the learner's value next to the course's.
type Row struct {
	Case
	Yours, Course float64
	Panic         string // what the learner's function panicked with, if it did
	OK            bool
}

// Versus is the learner's formula set against their own measurement.
type Versus struct {
	Measurement
	Yours  float64 // the learner's formula at the measured inputs
	Course float64 // the course's formula at the same inputs
	Err    error   // the measurement is not there yet
	Panic  string  // what the learner's function panicked with at the measured inputs, if it did
}

// Report is what Check found.
type Report struct {
	Exercise
	Status  Status
	Rows    []Row
	Problem string  // for Invalid: what is wrong with the function
	Versus  *Versus // nil when the exercise has no measurement
}

// Validate reports an exercise that cannot be checked (a course mistake, found by tests).
func (e Exercise) Validate() error {
	switch {
	case e.Key == "" || e.Signature == "" || e.Task == "":
		return fmt.Errorf("exercise %q: needs a key, a task and a signature", e.Key)
	case e.Course == nil:
		return fmt.Errorf("exercise %s: no course formula", e.Key)
	case len(e.Cases) == 0:
		return fmt.Errorf("exercise %s: no cases to check", e.Key)
	case e.Answer == "" || e.Hint == "":
		return fmt.Errorf("exercise %s: needs a hint and a worked answer", e.Key)
	}
	n := len(e.Cases[0].Args)
	for _, c := range e.Cases {
		if len(c.Args) != n {
			return fmt.Errorf("exercise %s: case %q has %d arguments, the first has %d", e.Key, c.Name, len(c.Args), n)
		}
		if v := e.Course(c.Args); v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("exercise %s: the course's formula gives %v for case %q: pick inputs where a placeholder 0 is wrong", e.Key, v, c.Name)
		}
	}
	return nil
}

// Check calls fn, the learner's function, on every case and compares it with the course's formula;
// then, when the exercise has a measurement, it sets fn against it. fn must be a func of as many
// numeric (float or int) parameters as a case has arguments, returning one number. Check never
// panics: a panicking fn is a Wrong row that says what it panicked with.
func (e Exercise) Check(fn any) Report {
	r := Report{Exercise: e}
	call, problem := callable(fn, len(e.Cases[0].Args))
	if problem != "" {
		r.Status, r.Problem = Invalid, problem
		return r
	}
	tol := e.Tolerance
	if tol == 0 {
		tol = DefaultTolerance
	}
	zeros, right := 0, 0
	for _, c := range e.Cases {
		want := e.Course(c.Args)
		got, p := call(c.Args)
		row := Row{Case: c, Yours: got, Course: want, Panic: p}
		row.OK = p == "" && agree(got, want, tol)
		if p == "" && got == 0 {
			zeros++
		}
		if row.OK {
			right++
		}
		r.Rows = append(r.Rows, row)
	}
	switch {
	case zeros == len(e.Cases):
		r.Status = Unanswered
	case right == len(e.Cases):
		r.Status = Right
	default:
		r.Status = Wrong
	}
	if e.Measured != nil && r.Status != Unanswered {
		m, err := e.Measured()
		v := &Versus{Measurement: m, Err: err}
		if err == nil {
			v.Yours, v.Panic = call(m.Args)
			v.Course = e.Course(m.Args)
		}
		r.Versus = v
	}
	return r
}

// callable wraps fn as a function of n float64 arguments, or says why it is not one.
func callable(fn any, n int) (func([]float64) (float64, string), string) {
	if fn == nil {
		return nil, "no function given: pass your function's name (without parentheses)"
	}
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func {
		return nil, fmt.Sprintf("got a value of type %s, want a function: pass your function's name (without parentheses)", t)
	}
	if t.NumIn() != n || t.IsVariadic() {
		return nil, fmt.Sprintf("your function takes %d argument(s), the exercise gives %d", t.NumIn(), n)
	}
	if t.NumOut() != 1 || !numeric(t.Out(0)) {
		return nil, fmt.Sprintf("your function must return one number (float64), it returns %s", outs(t))
	}
	for i := 0; i < n; i++ {
		if !numeric(t.In(i)) {
			return nil, fmt.Sprintf("argument %d of your function is a %s, want a number", i+1, t.In(i))
		}
	}
	return func(x []float64) (y float64, panicked string) {
		defer func() {
			if p := recover(); p != nil {
				y, panicked = math.NaN(), fmt.Sprint(p)
			}
		}()
		in := make([]reflect.Value, n)
		for i, a := range x {
			in[i] = reflect.ValueOf(a).Convert(t.In(i))
		}
		out := v.Call(in)[0]
		if out.CanFloat() {
			return out.Float(), ""
		}
		if out.CanInt() {
			return float64(out.Int()), ""
		}
		return float64(out.Uint()), ""
	}, ""
}

func numeric(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func outs(t reflect.Type) string {
	if t.NumOut() == 0 {
		return "nothing"
	}
	var s []string
	for i := 0; i < t.NumOut(); i++ {
		s = append(s, t.Out(i).String())
	}
	return "(" + strings.Join(s, ", ") + ")"
}

func agree(got, want, tol float64) bool {
	if math.IsNaN(got) || math.IsInf(got, 0) {
		return false
	}
	return math.Abs(got-want) <= tol*math.Max(math.Abs(want), math.Abs(got))
}

// Num formats a value for a report: three significant digits, with an SI prefix for large or small
// magnitudes.
func Num(v float64, unit string) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 0):
		return fmt.Sprint(v)
	case unit == "bytes":
		return units.Bytes(v)
	case unit == "s":
		return units.Duration(v)
	case unit == "" || unit == "%" || unit == "days" || unit == "×":
		sep := " "
		if unit == "" || unit == "%" {
			sep = ""
		}
		return strconv.FormatFloat(v, 'g', 3, 64) + sep + unit
	}
	return strings.TrimSpace(units.SI(v, unit))
}

// Headline is the report's one-line verdict.
func (r Report) Headline() string {
	switch r.Status {
	case Unanswered:
		return fmt.Sprintf("Not answered yet: write the body of %s (replace `return 0`) and run the cell again.", r.Signature)
	case Invalid:
		return "Your function does not fit: " + r.Problem + ". Declare it as " + r.Signature + "."
	case Right:
		return fmt.Sprintf("Right: your %s agrees with the course's formula on all %d cases.", name(r.Signature), len(r.Rows))
	}
	for _, row := range r.Rows {
		if row.OK {
			continue
		}
		if row.Panic != "" {
			return fmt.Sprintf("Not yet: for %s, %s panicked (%s).", row.Name, row.Call(r.Signature), row.Panic)
		}
		return fmt.Sprintf("Not yet: for %s, %s gives %s, the course's formula %s.", row.Name, row.Call(r.Signature), Num(row.Yours, r.Unit), Num(row.Course, r.Unit))
	}
	return ""
}

// VersusLine sets the learner's formula against their measurement, or says which cell to run.
func (r Report) VersusLine() string {
	v := r.Versus
	if v == nil {
		return ""
	}
	if v.Err != nil {
		return "Against your measurement: " + v.Err.Error()
	}
	if v.Panic != "" {
		return fmt.Sprintf("Against your measurement (%s, %s): your function panicked (%s).", v.What, v.Name, v.Panic)
	}
	var s string
	if v.Value == 0 {
		s = fmt.Sprintf("With your measurement (%s, %s): your formula gives %s.", v.What, v.Name, Num(v.Yours, r.Unit))
	} else {
		s = fmt.Sprintf("Against your measurement (%s, %s): your formula gives %s, measured %s", v.What, v.Name, Num(v.Yours, r.Unit), Num(v.Value, r.Unit))
		if !math.IsNaN(v.Yours) && v.Yours != 0 {
			s += fmt.Sprintf(" (measured / formula = %s)", units.Sig3(v.Value/v.Yours))
		}
		s += "."
	}
	if v.Note != "" {
		s += " " + v.Note
	}
	return s
}

func name(sig string) string {
	n, _, _ := strings.Cut(sig, "(")
	return n
}

// Text is the report in plain text: the task, the verdict, the hint on a wrong answer, the
// measurement line and the worked answer (headless runs and text views read this).
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your turn: %s\n  func %s\n%s\n", r.Task, r.Signature, r.Headline())
	if r.Status == Wrong || r.Status == Invalid {
		fmt.Fprintf(&b, "Hint: %s\n", r.Hint)
	}
	if l := r.VersusLine(); l != "" {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(&b, "Worked answer (open it after you try):\n  func %s {\n\t%s\n  }\n", r.Signature, r.Answer)
	if r.Why != "" {
		b.WriteString(r.Why + "\n")
	}
	return b.String()
}
