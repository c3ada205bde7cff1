// Package measure times workloads honestly and keeps the results.
//
// The rules it enforces: compile time is measured apart from run time (GoMLX compiles once per input
// shape); warm-up runs come before timed ones; a timed run ends only when the device has finished
// (go-xla's execute waits on PJRT's device-completion events before it returns, see
// pjrt/loadedexecutables.go, and outputs stay on the device until read, so reading a result to the host
// is a separate cost and is kept out of the timed region); and results are reported as median, min,
// p90 and coefficient of variation, never a single run.
//
// Results are plain structs with provenance that marshal to JSON, so a sweep measured in one notebook
// cell can be charted in the next, and results recorded on a GPU last month are charted the same way,
// labeled as recorded.
package measure

import (
	"math"
	"slices"
	"time"
)

// Stats summarizes repeated timings of one operation.
type Stats struct {
	N      int           `json:"n"`
	Median time.Duration `json:"median_ns"`
	Min    time.Duration `json:"min_ns"`
	P90    time.Duration `json:"p90_ns"`
	Mean   time.Duration `json:"mean_ns"`
	// CV is the coefficient of variation: standard deviation over mean (0.03 = 3%).
	CV float64 `json:"cv"`
}

// Summarize computes Stats from samples. The p90 uses the nearest-rank method.
func Summarize(samples []time.Duration) Stats {
	n := len(samples)
	if n == 0 {
		return Stats{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	var sum float64
	for _, d := range s {
		sum += float64(d)
	}
	mean := sum / float64(n)
	var sq float64
	for _, d := range s {
		sq += (float64(d) - mean) * (float64(d) - mean)
	}
	var cv float64
	if n > 1 && mean > 0 {
		cv = math.Sqrt(sq/float64(n-1)) / mean
	}
	median := s[n/2]
	if n%2 == 0 {
		median = (s[n/2-1] + s[n/2]) / 2
	}
	rank := int(math.Ceil(0.9*float64(n))) - 1
	return Stats{N: n, Median: median, Min: s[0], P90: s[max(rank, 0)], Mean: time.Duration(mean), CV: cv}
}

// Clock tells the time; tests replace it with a fake.
type Clock interface{ Now() time.Time }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// RealClock is the wall clock (monotonic).
var RealClock Clock = realClock{}

// Options control a timing run.
type Options struct {
	Warmup  int           // untimed runs first (default 2)
	Reps    int           // minimum timed runs (default 5)
	MinTime time.Duration // keep repeating until this much timed time has passed (default 0)
	MaxReps int           // upper bound on timed runs when MinTime is set (default 1000)
	Clock   Clock         // default RealClock
}

func (o Options) withDefaults() Options {
	if o.Warmup == 0 {
		o.Warmup = 2
	}
	if o.Warmup < 0 {
		o.Warmup = 0
	}
	if o.Reps <= 0 {
		o.Reps = 5
	}
	if o.MaxReps <= 0 {
		o.MaxReps = 1000
	}
	if o.Clock == nil {
		o.Clock = RealClock
	}
	return o
}

// Time runs fn Warmup times untimed, then at least Reps times (and until MinTime has passed), timing
// each call separately. fn must return only when its work has completed. The first error stops it.
func Time(fn func() error, opt Options) (Stats, []time.Duration, error) {
	opt = opt.withDefaults()
	for i := 0; i < opt.Warmup; i++ {
		if err := fn(); err != nil {
			return Stats{}, nil, err
		}
	}
	var samples []time.Duration
	var total time.Duration
	for len(samples) < opt.Reps || (total < opt.MinTime && len(samples) < opt.MaxReps) {
		t0 := opt.Clock.Now()
		if err := fn(); err != nil {
			return Stats{}, samples, err
		}
		d := opt.Clock.Now().Sub(t0)
		samples = append(samples, d)
		total += d
	}
	return Summarize(samples), samples, nil
}
