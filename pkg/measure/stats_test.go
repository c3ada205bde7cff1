package measure

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// fakeClock advances by the next programmed step on every Now, so a timed call of fn lasts exactly one
// step (Time calls Now once before and once after each timed call, never during warm-up).
type fakeClock struct {
	now   time.Time
	steps []time.Duration
	calls int
}

func (c *fakeClock) Now() time.Time {
	if c.calls%2 == 1 { // the call that ends a timed run
		i := c.calls / 2
		c.now = c.now.Add(c.steps[i%len(c.steps)])
	}
	c.calls++
	return c.now
}

func ms(v ...float64) []time.Duration {
	out := make([]time.Duration, len(v))
	for i, x := range v {
		out[i] = time.Duration(x * float64(time.Millisecond))
	}
	return out
}

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		samples                []time.Duration
		median, min, p90, mean time.Duration
		cv                     float64
	}{
		{"empty", nil, 0, 0, 0, 0, 0},
		{"one", ms(5), ms(5)[0], ms(5)[0], ms(5)[0], ms(5)[0], 0},
		{"odd, unsorted", ms(3, 1, 2), ms(2)[0], ms(1)[0], ms(3)[0], ms(2)[0], 0.5},
		{"even: median is the mean of the middle two", ms(4, 1, 3, 2), ms(2.5)[0], ms(1)[0], ms(4)[0], ms(2.5)[0], math.Sqrt(5.0/3) / 2.5},
		{"constant: CV 0", ms(7, 7, 7, 7, 7), ms(7)[0], ms(7)[0], ms(7)[0], ms(7)[0], 0},
		// p90 by nearest rank: ceil(0.9·10) = 9th smallest.
		{"ten: p90 is the 9th", ms(10, 1, 2, 3, 4, 5, 6, 7, 8, 9), ms(5.5)[0], ms(1)[0], ms(9)[0], ms(5.5)[0], 0.5504818825631803},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(tc.samples)
			if s.N != len(tc.samples) || s.Median != tc.median || s.Min != tc.min || s.P90 != tc.p90 || s.Mean != tc.mean {
				t.Errorf("Summarize = %+v, want median %v min %v p90 %v mean %v", s, tc.median, tc.min, tc.p90, tc.mean)
			}
			if math.Abs(s.CV-tc.cv) > 1e-9 {
				t.Errorf("CV = %.12f, want %.12f", s.CV, tc.cv)
			}
		})
	}
}

func TestSummarizeDoesNotReorderSamples(t *testing.T) {
	s := ms(3, 1, 2)
	Summarize(s)
	if s[0] != ms(3)[0] {
		t.Error("Summarize sorted the caller's slice")
	}
}

func TestTimeWithFakeClock(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opt       Options
		steps     []time.Duration
		wantCalls int // calls of fn, warm-up included
		wantN     int
		median    time.Duration
	}{
		{"defaults: 2 warm-up + 5", Options{}, ms(10), 7, 5, ms(10)[0]},
		{"no warm-up", Options{Warmup: -1, Reps: 3}, ms(1, 2, 3), 3, 3, ms(2)[0]},
		{"reps", Options{Warmup: 1, Reps: 4}, ms(4, 1, 3, 2), 5, 4, ms(2.5)[0]},
		// MinTime: 10 ms runs until 100 ms have been timed → 10 runs, even though Reps is 3.
		{"min time", Options{Warmup: 1, Reps: 3, MinTime: 100 * time.Millisecond}, ms(10), 11, 10, ms(10)[0]},
		// MaxReps bounds MinTime.
		{"max reps", Options{Warmup: 1, Reps: 3, MinTime: time.Hour, MaxReps: 6}, ms(10), 7, 6, ms(10)[0]},
		// Reps wins over a MinTime already reached.
		{"reps beyond min time", Options{Warmup: 1, Reps: 8, MinTime: time.Millisecond}, ms(10), 9, 8, ms(10)[0]},
		// 4 runs per sample: a 40 ms sample is 10 ms per run; MinTime counts the 40 ms.
		{"runs per sample", Options{Warmup: 1, Reps: 2, MinTime: 100 * time.Millisecond, RunsPerSample: 4}, ms(40), 1 + 3*4, 3, ms(10)[0]},
		// SampleTime: the probe run is timed (10 ms), so 25 ms samples take 3 runs.
		{"sample time", Options{Warmup: 1, Reps: 2, SampleTime: 25 * time.Millisecond}, ms(10, 30, 30), 1 + 1 + 2*3, 2, ms(10)[0]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &fakeClock{now: time.Unix(0, 0), steps: tc.steps}
			tc.opt.Clock = clock
			calls := 0
			st, samples, err := Time(func() error { calls++; return nil }, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if calls != tc.wantCalls || st.N != tc.wantN || len(samples) != tc.wantN {
				t.Errorf("fn called %d times, %d samples (N=%d); want %d calls, %d samples", calls, len(samples), st.N, tc.wantCalls, tc.wantN)
			}
			if st.Median != tc.median {
				t.Errorf("median %v, want %v", st.Median, tc.median)
			}
			wantClock := 2 * tc.wantN
			if tc.opt.SampleTime > 0 {
				wantClock += 2 // the probe run that sizes the samples
			}
			if clock.calls != wantClock {
				t.Errorf("the clock was read %d times, want %d: warm-up must not be timed", clock.calls, wantClock)
			}
		})
	}
}

func TestTimeStopsAtTheFirstError(t *testing.T) {
	boom := errors.New("boom")
	for _, failAt := range []int{1, 4} { // during warm-up, during the timed runs
		calls := 0
		_, _, err := Time(func() error {
			calls++
			if calls == failAt {
				return boom
			}
			return nil
		}, Options{Warmup: 2, Reps: 5, Clock: &fakeClock{now: time.Unix(0, 0), steps: ms(1)}})
		if !errors.Is(err, boom) || calls != failAt {
			t.Errorf("fail at call %d: err %v after %d calls", failAt, err, calls)
		}
	}
}

// One aggregate is one sample: no spread, and it says so instead of a CV of 0.
func TestOneSample(t *testing.T) {
	s := OneSample(10*time.Millisecond, 100)
	if s.N != 1 || s.RunsPerSample != 100 || s.Median != 100*time.Microsecond || !s.OneSample() {
		t.Errorf("OneSample: %+v", s)
	}
	if got := s.Spread(); got != "one sample of 100 runs: no spread" {
		t.Errorf("Spread: %q", got)
	}
	if r := (results.Result{Label: "x", Stats: s}); strings.Contains(r.String(), "CV") {
		t.Errorf("String of one sample shows a CV: %q", r.String())
	}
	if Summarize([]time.Duration{1, 2, 3}).OneSample() {
		t.Errorf("three samples are not one")
	}
}
