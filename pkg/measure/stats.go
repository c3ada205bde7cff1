package measure

import (
	"math"
	"slices"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// OneSample is the results.Stats of one aggregate: total time over runs runs, timed as a whole (a batch of
// concurrent jobs, a pipelined training loop), so there is no spread to report. N is 1 and
// RunsPerSample is runs; Median, Min, P90 and Mean are the one per-run figure and CV is 0 by
// construction, which Spread says instead of showing it as a steady measurement.
func OneSample(total time.Duration, runs int) results.Stats {
	runs = max(runs, 1)
	per := total / time.Duration(runs)
	return results.Stats{N: 1, RunsPerSample: runs, Median: per, Min: per, P90: per, Mean: per}
}

// Summarize computes results.Stats from samples. The p90 uses the nearest-rank method.
func Summarize(samples []time.Duration) results.Stats {
	n := len(samples)
	if n == 0 {
		return results.Stats{}
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
	rank := int(math.Ceil(0.9*float64(n))) - 1
	return results.Stats{N: n, Median: units.Median(s), Min: s[0], P90: s[max(rank, 0)], Mean: time.Duration(mean), CV: cv}
}

// Clock tells the time; tests replace it with a fake.
type Clock interface{ Now() time.Time }

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// RealClock is the wall clock (monotonic).
var RealClock Clock = realClock{}

// Options control a timing run.
type Options struct {
	// Warmup is the number of untimed runs first. 0 means the default, 2 (so a zero Options warms
	// up); -1 (any negative value) means none, for a workload that warms itself up (e.g. in its
	// Compile, as lesson 1's split matmuls do).
	Warmup  int
	Reps    int           // minimum timed samples (default 5)
	MinTime time.Duration // keep repeating until this much timed time has passed (default 0)
	MaxReps int           // upper bound on timed samples when MinTime is set (default 1000)
	// RunsPerSample is how many consecutive runs one timed sample covers (default 1); the sample's
	// duration is divided by it, so Stats stay per run. Runs shorter than a millisecond or so jitter
	// with every scheduler tick and interrupt; timing a few milliseconds of them at once (as timeit
	// and Google Benchmark do) measures their throughput and keeps the CV meaningful.
	RunsPerSample int
	// SampleTime, when set, chooses RunsPerSample instead: after the warm-up one more run is timed
	// and RunsPerSample becomes the number of such runs that fill SampleTime (at least 1).
	SampleTime time.Duration
	Clock      Clock // default RealClock
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
	if o.RunsPerSample <= 0 {
		o.RunsPerSample = 1
	}
	if o.Clock == nil {
		o.Clock = RealClock
	}
	return o
}

// Time runs fn Warmup times untimed, then takes at least Reps timed samples (and more until MinTime
// has passed), each of RunsPerSample consecutive calls (or as many as fill SampleTime), and returns
// per-call durations (a sample's time over RunsPerSample). fn must return only when its work has
// completed. The first error stops it. After CatchInterrupt, an interrupt stops it after the call in
// progress — warm-up or timed, between the calls of one sample too — with the samples completed so
// far and ErrInterrupted.
func Time(fn func() error, opt Options) (results.Stats, []time.Duration, error) {
	opt = opt.withDefaults()
	for i := 0; i < opt.Warmup; i++ {
		if err := fn(); err != nil {
			return results.Stats{}, nil, err
		}
		if Interrupted() {
			return results.Stats{}, nil, ErrInterrupted
		}
	}
	if opt.SampleTime > 0 {
		t0 := opt.Clock.Now()
		if err := fn(); err != nil {
			return results.Stats{}, nil, err
		}
		if Interrupted() {
			return results.Stats{}, nil, ErrInterrupted
		}
		if d := opt.Clock.Now().Sub(t0); d > 0 {
			opt.RunsPerSample = max(1, int(math.Ceil(float64(opt.SampleTime)/float64(d))))
		}
	}
	var samples []time.Duration
	var total time.Duration
	faults0, faultsOK := minorFaults()
	probe := StartProbe()
	for len(samples) < opt.Reps || (total < opt.MinTime && len(samples) < opt.MaxReps) {
		t0 := opt.Clock.Now()
		for k := 0; k < opt.RunsPerSample; k++ {
			if err := fn(); err != nil {
				return results.Stats{}, samples, err
			}
			if Interrupted() { // the sample in progress is incomplete: keep the completed ones
				return probe.Summarize(samples), samples, ErrInterrupted
			}
		}
		d := opt.Clock.Now().Sub(t0)
		samples = append(samples, d/time.Duration(opt.RunsPerSample))
		total += d
	}
	st := probe.Summarize(samples)
	st.RunsPerSample = opt.RunsPerSample
	if faults1, ok := minorFaults(); ok && faultsOK && len(samples) > 0 {
		runs := float64(len(samples) * max(opt.RunsPerSample, 1))
		st.FreshBytes = float64(faults1-faults0) * float64(pageSize()) / runs
	}
	return st, samples, nil
}
