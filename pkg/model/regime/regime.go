package regime

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The regimes, as Classify names them, and the two verdicts that name none.
const (
	Overhead = "overhead-bound"
	Memory   = "memory-bandwidth-bound"
	Compute  = "compute-bound"
	Unknown  = "not classified"
	// CeilingTooLow is the verdict when a budget is longer than the measured time (Explained above
	// TooLowAbove): the step went faster than a roof allows, so that roof is wrong for it, and no
	// regime can be read off it.
	CeilingTooLow = "no verdict: a ceiling is too low"
)

// OverheadBelow is the share of the measured time the larger budget must explain to name the
// regime: "most" of it. Below one half, fixed costs (or whatever else neither budget counts) hold
// more of the time than the budget does, and the step is overhead-bound.
const OverheadBelow = 0.5

// TooLowAbove is how far a budget may exceed the measured time before Classify refuses a verdict:
// up to 20% is timing noise; beyond it the ceiling behind the budget sits below what the step
// reached (its data stayed in a cache, or the ceiling was measured under load).
const TooLowAbove = 1.2

// WhyTooLow is the Why of a CeilingTooLow verdict.
const WhyTooLow = "a budget exceeds the measured time: the ceiling used is below what this step reached " +
	"(data resident in cache, or a ceiling measured under load) — re-measure the ceilings before classifying"

// Rule is the budget rule in one sentence, for a table's note.
const Rule = "The larger budget names the regime when it explains at least half the measured time, else what neither counts does (overhead-bound: " +
	"dispatch and launches, and on a CPU fresh memory's first touch, T_fresh = fresh bytes × the measured cost of a page fault, which grows with the bytes); " +
	"a budget over 120% of the time gives no verdict: its ceiling was measured too low."

// Budget is what a verdict needs: the work of a step (FLOPs and bytes moved to and from memory),
// its measured time, and the device's measured ceilings.
type Budget struct {
	FLOPs, Bytes       float64
	Measured           time.Duration
	CeilingFLOPS       float64 // compute ceiling, FLOP/s (measured: the best of large matmuls)
	CeilingBytesPerSec float64 // bandwidth ceiling, byte/s (measured: copy passes beyond the caches)
	// FreshBytes is the fresh memory a run touched for the first time (results.Stats.FreshBytes), and
	// FirstTouch what that costs per byte on this device (measured page faults, seconds per byte; 0 when
	// not measured): on a CPU each new page costs a fault, time that neither budget counts.
	FreshBytes, FirstTouch float64
}

// Verdict is a classified budget: the three times (seconds) and the regime.
type Verdict struct {
	Regime    string
	TCompute  float64 // FLOPs ÷ compute ceiling
	TMemory   float64 // bytes ÷ bandwidth ceiling
	TMeasured float64 // the measured time
	// TFresh is FreshBytes × FirstTouch: the page faults of a run's fresh memory at the measured cost
	// per page (0 when either is unknown). It names what an overhead verdict's rest is (Rest).
	TFresh float64
	// Explained is max(TCompute, TMemory) ÷ TMeasured: the share of the time the larger budget
	// accounts for. Above TooLowAbove a ceiling is too low for this step (CeilingTooLow).
	Explained float64
	Why       string // for Unknown: which input is missing; for CeilingTooLow: WhyTooLow
	// FreshBytes and FirstTouch are the budget's, for Rest's sentence.
	FreshBytes, FirstTouch float64
}

// FreshMemory reports whether the first touch of fresh memory accounts for what the budgets leave:
// T_fresh is at least half of the measured time beyond the larger budget. A cost that grows with the
// bytes written yet is not the memory's streaming bandwidth (a GPU framework's caching allocator
// reuses memory and pays none).
func (v Verdict) FreshMemory() bool {
	rest := v.TMeasured - math.Max(v.TCompute, v.TMemory)
	return v.TFresh > 0 && rest > 0 && v.TFresh >= 0.5*rest
}

// FreshNotable reports whether T_fresh is at least a tenth of the measured time: then Rest names fresh
// memory, as all or part of what the budgets leave.
func (v Verdict) FreshNotable() bool { return v.TMeasured > 0 && v.TFresh >= 0.1*v.TMeasured }

// Rest says what holds the time an overhead verdict leaves unexplained, from the numbers: fresh
// memory's first touch when T_fresh accounts for it (FreshMemory); fresh memory and something else,
// named as unknown, when T_fresh covers only part; otherwise fixed costs.
func (v Verdict) Rest() string {
	larger := math.Max(v.TCompute, v.TMemory)
	switch {
	case v.FreshMemory():
		return fmt.Sprintf("the first touch of fresh memory accounts for at least half of the rest: %s of new pages a run, %s of page faults at the %s a page "+
			"measured here (T_fresh) — the operating system maps and zeroes each new page, a cost that grows with the bytes written "+
			"but is not the memory's streaming bandwidth",
			units.Bytes(v.FreshBytes), units.Duration(v.TFresh), units.Duration(v.FirstTouch*float64(os.Getpagesize())))
	case v.FreshNotable():
		return fmt.Sprintf("the first touch of the %s of fresh memory each run wrote adds %s (T_fresh), and %s is neither bytes nor page faults: "+
			"not counted here (per-operation work, a slow kernel or other programs) — rerun when the machine is quiet before reading more into it",
			units.Bytes(v.FreshBytes), units.Duration(v.TFresh), units.Duration(v.TMeasured-larger-v.TFresh))
	}
	return "fixed costs hold the rest (calls, dispatch, per-operation work)"
}

// Of is the budget of a measured result: its FLOPs, bytes, median time and the ceilings measured
// on its device (measure.MeasureCeilings fills them in).
func Of(r results.Result) Budget {
	return Budget{FLOPs: r.FLOPs, Bytes: r.Bytes, Measured: r.Stats.Median,
		CeilingFLOPS: r.CeilingFLOPS, CeilingBytesPerSec: r.CeilingBytesPerSec, FreshBytes: r.Stats.FreshBytes, FirstTouch: r.FirstTouchPerByte}
}

// Classify applies the rule: the larger of T_compute and T_memory names the regime when it explains
// at least OverheadBelow (half) of the measured time; otherwise the step is overhead-bound. When the
// larger budget exceeds the time by more than TooLowAbove, no regime is named (CeilingTooLow). A
// budget without a measured time or ceilings is Unknown, with Why saying what is missing.
func (b Budget) Classify() Verdict {
	v := Verdict{TMeasured: b.Measured.Seconds(), FreshBytes: b.FreshBytes, FirstTouch: b.FirstTouch}
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
	v.TFresh = b.FreshBytes * b.FirstTouch
	v.Explained = math.Max(v.TCompute, v.TMemory) / v.TMeasured
	switch {
	case v.Explained > TooLowAbove:
		v.Regime, v.Why = CeilingTooLow, WhyTooLow
	case v.Explained < OverheadBelow:
		v.Regime = Overhead
	case v.TCompute >= v.TMemory:
		v.Regime = Compute
	default:
		v.Regime = Memory
	}
	return v
}

// FitsInCache reports whether bytes fit in this machine's last-level CPU cache (devices.CPUCaches):
// a step whose bytes do may be served from the cache between runs, faster than the DRAM bandwidth
// T_memory assumes, so a memory-bandwidth-bound verdict from that budget is only an upper bound.
// False when the caches are unknown.
func FitsInCache(bytes float64) bool {
	cs, err := devices.CPUCaches()
	if err != nil || len(cs) == 0 {
		return false
	}
	return bytes <= float64(cs[len(cs)-1].Bytes)
}

// CacheResident reports whether a CPU verdict cannot be read against the DRAM roof: the step's bytes
// fit in the last-level cache (FitsInCache) and T_memory is at least a tenth of the time, so those
// bytes, served from the cache faster than the DRAM bandwidth, may hold what the verdict gives to
// bandwidth (memory-bandwidth-bound) or to fixed costs (overhead-bound: a wide layer's batch-1 step
// reads and updates its weights whatever the batch). A step whose T_memory is tiny even at DRAM rate
// stays overhead-bound: from a cache it would be tinier still.
func (v Verdict) CacheResident(bytes float64) bool {
	switch v.Regime {
	case Memory:
	case Overhead:
		if v.TMemory < 0.1*v.TMeasured {
			return false
		}
	default:
		return false
	}
	return FitsInCache(bytes)
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
		return fmt.Sprintf("%s: neither budget explains the %s — the larger, %s, is %s of it; %s (T_compute %s, T_memory %s)",
			v.Regime, t, units.Duration(math.Max(v.TCompute, v.TMemory)), pct, v.Rest(), tc, tm)
	case CeilingTooLow:
		return fmt.Sprintf("%s — %s (T_compute %s, T_memory %s, measured %s)", v.Regime, v.Why, tc, tm, t)
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

// GrowsWithWork says, for a pair whose two verdicts are overhead-bound, when the time still grew
// with the FLOPs: twice the arithmetic (more than the bytes grew) in at least GrowsAbove × twice the
// time. What neither budget counts is then no fixed cost: the arithmetic runs below the large-matmul
// ceiling at this size (small products, short loops), and faster math would help. "" otherwise.
func (p Pair) GrowsWithWork() string {
	if p.Verdict.Regime != Overhead || p.VerdictTwo.Regime != Overhead || p.T1 <= 0 || p.Base.FLOPs <= 0 || p.Base.Bytes <= 0 {
		return ""
	}
	flops, bytes, t := p.Doubled.FLOPs/p.Base.FLOPs, p.Doubled.Bytes/p.Base.Bytes, p.T2/p.T1
	if flops < 1.5 || flops < 1.2*bytes || t < GrowsAbove*flops {
		return ""
	}
	var caveat string
	if why := results.WhyDisturbed(p.Base, p.Doubled); why != "" {
		caveat = " (disturbed: rerun to confirm)"
	}
	lo, hi := fmt.Sprintf("%.0f", 100*p.Verdict.TCompute/p.Verdict.TMeasured), fmt.Sprintf("%.0f", 100*p.VerdictTwo.TCompute/p.VerdictTwo.TMeasured)
	share := lo + "%"
	if lo != hi {
		share = lo + "% and " + hi + "%"
	}
	return fmt.Sprintf("%s: overhead-bound by the budgets, yet %.2g× the FLOPs (%.2g× the bytes) took %.2f× the time%s: what neither "+
		"budget counts grows with the arithmetic: most of it is no fixed cost. The arithmetic runs at %s of the measured compute "+
		"ceiling at these sizes (a large matmul's rate; small matrix products and short loops reach a fraction of it): faster math would help.",
		p.Base.Label, flops, bytes, t, caveat, share)
}

// GrowsAbove is the share of the work's growth the time must follow for GrowsWithWork: 80%.
const GrowsAbove = 0.8

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
	notes := []string{"T_compute = FLOPs ÷ the measured compute ceiling; T_memory = bytes ÷ the measured bandwidth. " + Rule}
	for _, p := range Pairs(rs) {
		if g := p.GrowsWithWork(); g != "" {
			notes = append(notes, g)
		}
	}
	return units.Table{Header: []string{"workload", "device", "time (median)", "vs base", "T_compute", "T_memory", "explained", "verdict"},
		Rows: rows, Disturbed: disturbed, Origins: results.Origins(rs), Notes: notes}
}
