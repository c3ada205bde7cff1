package predict

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Prediction is one kept guess.
type Prediction struct {
	Key   string    `json:"key"`   // lesson-qualified name, e.g. "03/double-time"
	Value float64   `json:"value"` // the learner's number, in Unit
	Unit  string    `json:"unit"`  // what the number counts: "batch", "×", "GFLOP/s"
	At    time.Time `json:"at"`    // when it was kept
}

var keyRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$`)

// Dir is where predictions are kept: results.CacheDir()/predictions.
func Dir() string { return filepath.Join(results.CacheDir(), "predictions") }

func path(key string) string { return filepath.Join(Dir(), strings.ReplaceAll(key, "/", "--")+".json") }

// Check validates a key and a value: keys are lower-case words joined by / . _ -; values must be
// finite and not negative (0 means "no prediction").
func Check(key string, value float64) error {
	if !keyRE.MatchString(key) {
		return fmt.Errorf("predict: key %q: use lower-case letters, digits and / . _ - (e.g. \"03/double-time\")", key)
	}
	if math.IsNaN(value) || math.IsInf(value, 0) {
		return fmt.Errorf("predict: %s: a prediction must be a finite number, not %v", key, value)
	}
	if value < 0 {
		return fmt.Errorf("predict: %s: a prediction of %g is negative: every quantity here is a size, a time or a ratio", key, value)
	}
	return nil
}

// Keep stores the prediction for key (replacing an earlier one). A value of 0 removes any kept
// prediction: the learner has not predicted yet. It returns what is kept now (zero Prediction for 0).
func Keep(key string, value float64, unit string) (Prediction, error) {
	if err := Check(key, value); err != nil {
		return Prediction{}, err
	}
	if value == 0 {
		if err := os.Remove(path(key)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return Prediction{}, err
		}
		return Prediction{}, nil
	}
	p := Prediction{Key: key, Value: value, Unit: unit, At: time.Now().UTC()}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return Prediction{}, err
	}
	if err := os.MkdirAll(Dir(), 0o755); err != nil {
		return Prediction{}, err
	}
	tmp := path(key) + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return Prediction{}, err
	}
	return p, os.Rename(tmp, path(key))
}

// Load returns the prediction kept for key; ok is false when there is none.
func Load(key string) (p Prediction, ok bool, err error) {
	if !keyRE.MatchString(key) {
		return p, false, Check(key, 0)
	}
	b, err := os.ReadFile(path(key))
	if errors.Is(err, os.ErrNotExist) {
		return p, false, nil
	}
	if err != nil {
		return p, false, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, false, fmt.Errorf("predict: reading the kept prediction %q: %w", key, err)
	}
	return p, p.Value > 0, nil
}

// Comparison is a measurement next to the prediction made before it.
type Comparison struct {
	Key       string
	Unit      string
	Measured  float64
	Predicted float64 // 0 when no prediction was kept
	Has       bool    // a prediction was kept
	Model     string  // where a non-measured answer comes from (Question.Model); "" when measured
	// Disturbed says what disturbed the kept measurements the answer was read from (Kept), "" when
	// they were quiet: the reveal marks its number, as the tables mark theirs.
	Disturbed string
}

// Label is what the answer is called on screen: "measured", or e.g. "GPU model (not a measurement)".
func (c Comparison) Label() string {
	if c.Model == "" {
		return "measured"
	}
	return c.Model + " (not a measurement)"
}

// RatioName names Ratio on screen: "measured/predicted", or "model/predicted" for a model's answer.
func (c Comparison) RatioName() string {
	if c.Model == "" {
		return "measured/predicted"
	}
	return "model/predicted"
}

// Compare pairs a measured value with the prediction kept for key (if any).
func Compare(key string, measured float64, unit string) (Comparison, error) {
	c := Comparison{Key: key, Unit: unit, Measured: measured}
	if math.IsNaN(measured) || math.IsInf(measured, 0) {
		return c, fmt.Errorf("predict: %s: the measurement is %v: nothing to compare", key, measured)
	}
	p, ok, err := Load(key)
	if err != nil {
		return c, err
	}
	if ok {
		c.Predicted, c.Has = p.Value, true
	}
	return c, nil
}

// Ratio is measured / predicted (0 without a prediction).
func (c Comparison) Ratio() float64 {
	if !c.Has || c.Predicted == 0 {
		return 0
	}
	return c.Measured / c.Predicted
}

// Factor is how far off the prediction was, as a factor ≥ 1 either way (0 without a prediction).
func (c Comparison) Factor() float64 {
	if !c.Has {
		return 0
	}
	r := c.Ratio()
	if r == 0 {
		return math.Inf(1)
	}
	return math.Max(r, 1/r)
}

// Verdict is one line on how close the prediction came.
func (c Comparison) Verdict() string {
	if !c.Has {
		return "No prediction was kept for this one (a headless run, or the prediction cell still says 0): " +
			"next time write your number in the prediction cell first."
	}
	if c.Measured == 0 {
		return "The measurement is 0, not your guess: read the note below on why."
	}
	f := c.Factor()
	dir := "higher"
	if c.Ratio() < 1 {
		dir = "lower"
	}
	switch {
	case f <= 1.25:
		return "Spot on: within 25 %."
	case f <= 2:
		return fmt.Sprintf("Close: the measurement is %s than your guess, within a factor of 2.", dir)
	default:
		return fmt.Sprintf("Off by %s× (the measurement is %s): worth a minute on why before reading on.", Num(f), dir)
	}
}

// Text is the comparison as plain text.
func (c Comparison) Text() string {
	if !c.Has {
		return fmt.Sprintf("%s: %s %s%s\n%s\n", c.Label(), Num(c.Measured), c.Unit, c.DisturbedNote(), c.Verdict())
	}
	return fmt.Sprintf("your prediction: %s %s · %s: %s %s%s · %s = %s\n%s\n",
		Num(c.Predicted), c.Unit, c.Label(), Num(c.Measured), c.Unit, c.DisturbedNote(), c.RatioName(), Num(c.Ratio()), c.Verdict())
}

// DisturbedNote is the mark a disturbed answer carries on screen, "" for a quiet one.
func (c Comparison) DisturbedNote() string {
	if c.Disturbed == "" {
		return ""
	}
	return " (⚠ disturbed: " + c.Disturbed + " while the measurements behind it ran; rerun the measuring cell on a quiet machine for a clean number)"
}

// Num formats a number to 3 significant digits without exponent noise for everyday sizes.
func Num(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 1e6 || a < 1e-3:
		return fmt.Sprintf("%.3g", v)
	default:
		s := fmt.Sprintf("%.3g", v)
		if strings.ContainsAny(s, "e") {
			return fmt.Sprintf("%.0f", v)
		}
		return s
	}
}

// Question is one prediction moment of a lesson: a number the learner guesses in one cell and a
// later cell measures. Answer computes the measured value from what this learner's earlier cells
// kept (results.Recall), so the comparison uses their own machine's numbers.
type Question struct {
	Key    string                  // lesson-qualified, e.g. "03/narrow-speedup"
	Text   string                  // the question, ending in what to give: "… (a batch size)"
	Unit   string                  // unit of the guess and the answer: "batch", "×", "GB/s"
	Answer func() (float64, error) // the measured value, from kept results
	Why    string                  // one line shown with the comparison: what sets the answer
	// Model names where the answer comes from when it is not a measurement ("GPU model", "datasheet"):
	// the reveal labels the number with it instead of "measured". Empty for a measured answer.
	Model string
}

// Validate checks a question is complete (used by the lessons' tests).
func (q Question) Validate() error {
	if err := Check(q.Key, 0); err != nil {
		return err
	}
	if q.Text == "" || q.Unit == "" || q.Answer == nil {
		return fmt.Errorf("predict: question %q needs Text, Unit and Answer", q.Key)
	}
	return nil
}

// Reveal computes the answer and compares it with the kept prediction.
func (q Question) Reveal() (Comparison, error) {
	if err := q.Validate(); err != nil {
		return Comparison{}, err
	}
	revealMu.Lock()
	defer revealMu.Unlock()
	keptDisturbed.Store("")
	v, err := q.Answer()
	if err != nil {
		return Comparison{Key: q.Key, Unit: q.Unit, Model: q.Model}, err
	}
	c, err := Compare(q.Key, v, q.Unit)
	c.Model = q.Model
	if q.Model == "" || strings.Contains(q.Model, "measured") { // a datasheet's or a model's answer is not disturbed by what else was kept
		c.Disturbed = keptDisturbed.Load().(string)
	}
	return c, err
}
