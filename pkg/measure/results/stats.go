package results

import (
	"fmt"
	"time"
)

// Stats summarizes repeated timings of one operation.
type Stats struct {
	N      int           `json:"n"`         // timed runs
	Median time.Duration `json:"median_ns"` // the middle run (mean of the middle two for even N)
	Min    time.Duration `json:"min_ns"`    // fastest run
	P90    time.Duration `json:"p90_ns"`    // 90th percentile, nearest rank
	Mean   time.Duration `json:"mean_ns"`   // arithmetic mean
	// CV is the coefficient of variation: standard deviation over mean (0.03 = 3%).
	CV float64 `json:"cv"`
	// RunsPerSample is how many consecutive runs each timed sample covered (Options.RunsPerSample);
	// the durations above are per run. 0 or 1: every run was timed on its own.
	RunsPerSample int `json:"runs_per_sample,omitempty"`
	// Disturbance is what other processes (and a container's CPU quota) did while the samples were
	// taken; Disturbed() marks a time that is the neighbours' load as much as the hardware's speed.
	Disturbance Disturbance `json:"disturbance"`
	// FreshBytes is the fresh memory one run touched for the first time, in bytes: this process's
	// minor page faults during the timed runs × the page size ÷ the runs. On a CPU each new output
	// buffer costs one fault per page (the operating system maps it and fills it with zeros): a cost
	// that grows with the bytes written but is not the memory's bandwidth. 0 when not counted.
	FreshBytes float64 `json:"fresh_bytes_per_run,omitempty"`
}

// Disturbed reports whether other processes or a CPU quota disturbed these timings (Disturbance).
func (s Stats) Disturbed() bool { return s.Disturbance.Disturbed() }

// OneSample reports whether these Stats are one sample (N is 1): Min, P90 and CV say nothing.
func (s Stats) OneSample() bool { return s.N == 1 }

// Spread is "min / p90, CV x%", or for one sample "one sample of N runs: no spread".
func (s Stats) Spread() string {
	if s.OneSample() {
		return fmt.Sprintf("one sample of %d runs: no spread", max(s.RunsPerSample, 1))
	}
	return fmt.Sprintf("%s / %s, CV %.1f%%", s.Min.Round(time.Microsecond), s.P90.Round(time.Microsecond), 100*s.CV)
}
