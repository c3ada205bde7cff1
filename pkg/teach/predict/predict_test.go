package predict

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestKeepLoadCompare(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	if _, ok, err := Load("03/double-time"); ok || err != nil {
		t.Fatalf("nothing kept yet: ok=%v err=%v", ok, err)
	}
	if _, err := Keep("03/double-time", 64, "batch"); err != nil {
		t.Fatal(err)
	}
	p, ok, err := Load("03/double-time")
	if !ok || err != nil || p.Value != 64 || p.Unit != "batch" {
		t.Fatalf("kept %+v ok=%v err=%v", p, ok, err)
	}
	c, err := Compare("03/double-time", 128, "batch")
	if err != nil || !c.Has || c.Ratio() != 2 || c.Factor() != 2 {
		t.Fatalf("compare %+v err=%v", c, err)
	}
	if !strings.Contains(c.Text(), "your prediction: 64 batch") || !strings.Contains(c.Text(), "measured/predicted = 2") {
		t.Errorf("text %q", c.Text())
	}
	// 0 takes the prediction back.
	if _, err := Keep("03/double-time", 0, "batch"); err != nil {
		t.Fatal(err)
	}
	c, _ = Compare("03/double-time", 128, "batch")
	if c.Has || c.Ratio() != 0 || !strings.Contains(c.Text(), "No prediction") {
		t.Errorf("after 0: %+v %q", c, c.Text())
	}
}

func TestRefused(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	for _, tc := range []struct {
		key  string
		v    float64
		want string
	}{
		{"Bad Key", 1, "lower-case"},
		{"", 1, "lower-case"},
		{"01/x", -3, "negative"},
		{"01/x", math.NaN(), "finite"},
		{"01/x", math.Inf(1), "finite"},
	} {
		if _, err := Keep(tc.key, tc.v, "x"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Keep(%q, %v): %v, want %q", tc.key, tc.v, err, tc.want)
		}
	}
	if _, err := Compare("01/x", math.NaN(), "x"); err == nil {
		t.Error("a NaN measurement was compared")
	}
}

func TestVerdict(t *testing.T) {
	for _, tc := range []struct {
		pred, meas float64
		want       string
	}{
		{10, 11, "Spot on"},
		{10, 18, "Close"},
		{10, 6, "lower"},
		{10, 100, "Off by 10×"},
		{100, 10, "Off by 10×"},
	} {
		c := Comparison{Predicted: tc.pred, Measured: tc.meas, Has: true}
		if v := c.Verdict(); !strings.Contains(v, tc.want) {
			t.Errorf("%v→%v: %q, want %q", tc.pred, tc.meas, v, tc.want)
		}
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 2: "2", 1234: "1234", 0.5: "0.5", 1.23456: "1.23", 2.5e9: "2.5e+09", 123456: "123456"} {
		if got := Num(v); got != want {
			t.Errorf("Num(%v) = %q, want %q", v, got, want)
		}
	}
}

// A model's answer is labeled as one, never as a measurement.
func TestModelAnswerIsLabeled(t *testing.T) {
	c := Comparison{Key: "02/x", Unit: "×", Measured: 1.02, Model: "GPU model"}
	if got := c.Text(); !strings.HasPrefix(got, "GPU model (not a measurement): 1.02 ×") || strings.Contains(got, "measured:") {
		t.Errorf("text %q", got)
	}
	c.Predicted, c.Has = 2, true
	if got := c.Text(); !strings.Contains(got, "model/predicted = 0.51") || strings.Contains(got, "measured") {
		t.Errorf("text %q", got)
	}
}

// TestRevealMarksDisturbedAnswers: an answer read from kept measurements that other programs
// disturbed carries the mark (review 3, 2026-12-04: a reveal printed a bare ratio from a disturbed
// outlier), and a quiet one does not.
func TestRevealMarksDisturbedAnswers(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	q := Question{Key: "00/test-disturbed", Text: "test", Unit: "×", Why: "test",
		Answer: func() (float64, error) {
			rs, err := Kept("test-disturbed", "xla:cpu")
			if err != nil {
				return 0, err
			}
			return rs[0].Seconds() * 1e3, nil
		}}
	for _, tc := range []struct {
		others float64
		want   bool
	}{{0.8, true}, {0.01, false}} {
		r := results.Result{Label: "x", Provenance: results.Provenance{Device: "xla:cpu"}}
		r.Stats.Median = time.Millisecond
		r.Stats.Disturbance = results.Disturbance{Counted: true, OthersCores: tc.others, CPUs: 2}
		if err := results.Keep("test-disturbed", []results.Result{r}); err != nil {
			t.Fatal(err)
		}
		c, err := q.Reveal()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(c.Text(), "⚠ disturbed"); got != tc.want {
			t.Errorf("others %.2f cores: marked %v, want %v:\n%s", tc.others, got, tc.want, c.Text())
		}
	}
}
