// Package regime holds the course's one frame: a step is compute-bound, memory-bandwidth-bound or
// overhead-bound, and the test that tells them apart — double the work; does the time double?
// Lesson 01 introduces it as its first measurement, lesson 07 applies it to a step's parts.
package regime

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/results"
	"github.com/gpu-course/whygpu/pkg/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The regimes, as Of names them.
const (
	Overhead = "overhead-bound"
	Memory   = "memory-bound"
	Compute  = "compute-bound"
)

// Names of a doubling result's sizes (results.Result.Params).
const (
	ParamSize = "size" // 1 for the base size, 2 for the doubled one
	ParamPair = "pair" // which pair
)

// OverheadGrowth is the doubling test's threshold: twice the work in less than 1.3× the time is
// overhead-bound (fixed costs dominate).
const OverheadGrowth = 1.3

// Of classifies a workload from its time at size 1 and 2 (twice the work; the fastest runs, which
// a busy machine disturbs least) and its device's measured ridge: time grew by less than 30 % →
// overhead-bound (fixed costs dominate: launching, Python/Go, synchronization); otherwise intensity
// below the ridge → memory-bound, above → compute-bound.
func Of(t1, t2, intensity, ridge float64) string {
	switch {
	case t2 < OverheadGrowth*t1:
		return Overhead
	case ridge > 0 && intensity < ridge:
		return Memory
	case ridge > 0:
		return Compute
	}
	return "not overhead-bound (no measured ridge to tell memory from compute)"
}

// Double measures every pair (a workload and the same with twice the work) on dev, after dev's
// ceilings, which the verdict uses. Each result's Params say its pair and size. progress, if not nil,
// is told after each pair.
func Double(dev *devices.Device, pairs [][2]workloads.Workload, progress func(done, total int)) ([]results.Result, error) {
	if _, err := measure.MeasureCeilings(dev); err != nil {
		return nil, err
	}
	var out []results.Result
	for i, p := range pairs {
		for k, w := range p {
			r, err := measure.Run(dev, w, measure.Options{Warmup: 2, Reps: 5, SampleTime: 2e6}, false)
			if err != nil {
				return out, err
			}
			if r.Params == nil {
				r.Params = map[string]int{}
			}
			r.Params[ParamPair], r.Params[ParamSize] = i, k+1
			out = append(out, r)
		}
		if progress != nil {
			progress(i+1, len(pairs))
		}
	}
	return out, nil
}

// Verdict is one measured pair: its times, their ratio and the regime.
type Verdict struct {
	Base, Doubled results.Result
	T1, T2        float64 // fastest runs, seconds
	Ridge         float64 // the device's measured ridge, FLOP/byte (0: unknown)
	Regime        string
}

// Verdicts pairs up results as Double returns them (size 1 followed by its size 2).
func Verdicts(rs []results.Result) []Verdict {
	var out []Verdict
	for i, r := range rs {
		if r.Params[ParamSize] != 1 || i+1 >= len(rs) {
			continue
		}
		r2 := rs[i+1]
		ridge := 0.0
		if r.CeilingBytesPerSec > 0 {
			ridge = r.CeilingFLOPS / r.CeilingBytesPerSec
		}
		t1, t2 := r.Stats.Min.Seconds(), r2.Stats.Min.Seconds()
		out = append(out, Verdict{Base: r, Doubled: r2, T1: t1, T2: t2, Ridge: ridge, Regime: Of(t1, t2, r.Intensity(), ridge)})
	}
	return out
}

// Table applies the test to every pair measured: time at both sizes, the ratio, and the verdict.
func Table(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, v := range Verdicts(rs) {
		rows = append(rows, []string{v.Base.Label, v.Base.Provenance.Label(), units.Duration(v.T1), units.Duration(v.T2),
			fmt.Sprintf("%.2f×", v.T2/v.T1), fmt.Sprintf("%.3g vs ridge %.3g", v.Base.Intensity(), v.Ridge), v.Regime})
		disturbed = append(disturbed, results.WhyDisturbed(v.Base, v.Doubled))
	}
	return units.Table{Header: []string{"workload", "device", "time (fastest run)", "at twice the work", "ratio", "intensity [FLOP/byte]", "verdict"}, Rows: rows, Disturbed: disturbed,
		Origins: results.Origins(rs)}
}
