package regime

import (
	"fmt"
	"math"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The regimes, as Classify names them.
const (
	Overhead = "overhead-bound"
	Memory   = "memory-bandwidth-bound"
	Compute  = "compute-bound"
	Unknown  = "not classified"
)

// OverheadBelow is the share of the measured time a budget must explain to name the regime: when
// max(T_compute, T_memory) is less than a quarter of T, fixed costs hold at least three quarters of
// it and the step is overhead-bound. Measured ceilings are what a tuned kernel reaches, and an
// ordinary kernel gets a half or a third of them, hence a quarter and not a half.
const OverheadBelow = 0.25

// Budget is what a verdict needs: the work of a step (FLOPs and bytes moved to and from memory),
// its measured time, and the device's measured ceilings.
type Budget struct {
	FLOPs, Bytes       float64
	Measured           time.Duration
	CeilingFLOPS       float64 // compute ceiling, FLOP/s (measured: lesson 02's large matmul)
	CeilingBytesPerSec float64 // bandwidth ceiling, byte/s (measured: a large copy)
}

// Verdict is a classified budget: the three times (seconds) and the regime.
type Verdict struct {
	Regime    string
	TCompute  float64 // FLOPs ÷ compute ceiling
	TMemory   float64 // bytes ÷ bandwidth ceiling
	TMeasured float64 // the measured time
	// Explained is max(TCompute, TMemory) ÷ TMeasured: the share of the time the larger budget
	// accounts for (above 1 when the ceiling was measured on a busier machine than the step).
	Explained float64
	Why       string // for Unknown: which input is missing
}

// Of is the budget of a measured result: its FLOPs, bytes, median time and the ceilings measured
// on its device (measure.MeasureCeilings fills them in).
func Of(r results.Result) Budget {
	return Budget{FLOPs: r.FLOPs, Bytes: r.Bytes, Measured: r.Stats.Median,
		CeilingFLOPS: r.CeilingFLOPS, CeilingBytesPerSec: r.CeilingBytesPerSec}
}

// Classify applies the rule: the larger of T_compute and T_memory names the regime when it explains
// at least OverheadBelow of the measured time; otherwise the step is overhead-bound. A budget
// without a measured time or ceilings is Unknown, with Why saying what is missing.
func (b Budget) Classify() Verdict {
	v := Verdict{TMeasured: b.Measured.Seconds()}
	switch {
	case b.Measured <= 0:
		v.Regime, v.Why = Unknown, "no measured time"
		return v
	case b.CeilingFLOPS <= 0 || b.CeilingBytesPerSec <= 0:
		v.Regime, v.Why = Unknown, "no measured ceilings (compute and bandwidth) to set the budgets"
		return v
	case b.FLOPs < 0 || b.Bytes < 0 || math.IsNaN(b.FLOPs+b.Bytes):
		v.Regime, v.Why = Unknown, fmt.Sprintf("invalid work: %g FLOPs, %g bytes", b.FLOPs, b.Bytes)
		return v
	}
	v.TCompute = b.FLOPs / b.CeilingFLOPS
	v.TMemory = b.Bytes / b.CeilingBytesPerSec
	v.Explained = math.Max(v.TCompute, v.TMemory) / v.TMeasured
	switch {
	case v.Explained < OverheadBelow:
		v.Regime = Overhead
	case v.TCompute >= v.TMemory:
		v.Regime = Compute
	default:
		v.Regime = Memory
	}
	return v
}

// Ridge is the intensity (FLOP/byte) at which the two budgets are equal.
func (b Budget) Ridge() float64 {
	if b.CeilingBytesPerSec <= 0 {
		return 0
	}
	return b.CeilingFLOPS / b.CeilingBytesPerSec
}

// String is the verdict in one line with its three numbers, e.g. "memory-bandwidth-bound: bytes
// explain 84% of the 1.60 ms (T_memory 1.34 ms, T_compute 0.27 ms)".
func (v Verdict) String() string {
	tc, tm, t := units.Duration(v.TCompute), units.Duration(v.TMemory), units.Duration(v.TMeasured)
	pct := fmt.Sprintf("%.0f%%", 100*v.Explained)
	switch v.Regime {
	case Compute:
		return fmt.Sprintf("%s: the arithmetic explains %s of the %s (T_compute %s, T_memory %s)", v.Regime, pct, t, tc, tm)
	case Memory:
		return fmt.Sprintf("%s: the bytes explain %s of the %s (T_memory %s, T_compute %s)", v.Regime, pct, t, tm, tc)
	case Overhead:
		return fmt.Sprintf("%s: neither budget explains the %s — the larger, %s, is %s of it; fixed costs hold the rest (T_compute %s, T_memory %s)",
			v.Regime, t, units.Duration(math.Max(v.TCompute, v.TMemory)), pct, tc, tm)
	}
	return fmt.Sprintf("%s: %s", Unknown, v.Why)
}

// Names of a doubling result's sizes (results.Result.Params).
const (
	ParamSize = "size" // 1 for the base size, 2 for the doubled one
	ParamPair = "pair" // which pair
)

// Double measures every pair (a workload and the same with twice the work) on dev, after dev's
// ceilings, which the budgets use. Each result's Params say its pair and size. progress, if not nil,
// is told after each pair. Doubling shows how the time responds; the verdict is each result's budget.
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

// Pair is one measured pair: its results, the time ratio and each size's verdict.
type Pair struct {
	Base, Doubled       results.Result
	T1, T2              float64 // median times, seconds
	Verdict, VerdictTwo Verdict // the budget verdicts of the base and the doubled size
}

// Pairs pairs up results as Double returns them (size 1 followed by its size 2).
func Pairs(rs []results.Result) []Pair {
	var out []Pair
	for i, r := range rs {
		if r.Params[ParamSize] != 1 || i+1 >= len(rs) {
			continue
		}
		r2 := rs[i+1]
		out = append(out, Pair{Base: r, Doubled: r2, T1: r.Seconds(), T2: r2.Seconds(),
			Verdict: Of(r).Classify(), VerdictTwo: Of(r2).Classify()})
	}
	return out
}

// Table shows every result measured with its budget: the measured time, T_compute, T_memory, the
// share explained and the verdict; for a doubled size also the time ratio to its base.
func Table(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, p := range Pairs(rs) {
		for k, r := range []results.Result{p.Base, p.Doubled} {
			v, ratio := p.Verdict, "—"
			if k == 1 {
				v, ratio = p.VerdictTwo, fmt.Sprintf("%.2f×", p.T2/p.T1)
			}
			rows = append(rows, []string{r.Label, r.Provenance.Label(), units.Duration(v.TMeasured), ratio,
				units.Duration(v.TCompute), units.Duration(v.TMemory), fmt.Sprintf("%.0f%%", 100*v.Explained), v.Regime})
		}
		why := results.WhyDisturbed(p.Base, p.Doubled)
		disturbed = append(disturbed, why, why)
	}
	return units.Table{Header: []string{"workload", "device", "time (median)", "vs base", "T_compute", "T_memory", "explained", "verdict"},
		Rows: rows, Disturbed: disturbed, Origins: results.Origins(rs),
		Notes: []string{"T_compute = FLOPs ÷ the measured compute ceiling; T_memory = bytes ÷ the measured bandwidth. " +
			"The larger names the regime if it explains at least a quarter of the time; if neither does, fixed costs set it: overhead-bound."}}
}
