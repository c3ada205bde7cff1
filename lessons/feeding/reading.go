package feeding

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/stepshares"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// ReadWorkers sets each live run of the loader sweep against the loader model with cores to spare
// (Fed): the measured time per step beside the model's, and what the gap says (modelGap).
func ReadWorkers(rs []results.Result) string {
	var parts []string
	var ratios []float64
	disturbed := false
	for _, r := range rs {
		if r.Provenance.Recorded || r.Seconds() <= 0 {
			continue
		}
		disturbed = disturbed || results.WhyDisturbed(r) != ""
		step := time.Duration(metric(r, ParamStepUS) * 1e3)
		cost := time.Duration(metric(r, ParamCostUS) * 1e3)
		period, _ := Fed(step, cost, r.Params[ParamWorkers])
		parts = append(parts, fmt.Sprintf("%d worker(s) %s (model %s)", r.Params[ParamWorkers], units.Duration(r.Seconds()), units.Duration(period.Seconds())))
		if period > 0 {
			ratios = append(ratios, r.Seconds()/period.Seconds())
		}
	}
	if len(parts) == 0 {
		return "No live loader sweep kept: run the sweep cell above first."
	}
	return "Time per step, yours against the model with cores to spare: " + strings.Join(parts, ", ") + "." + modelGap(ratios, disturbed)
}

// modelGap says what the measured ÷ modeled times per step show: all near the model (the loaders
// found spare cores), or slower by a factor the model leaves out (the loaders and the step shared
// the cores, and other programs too when a run was disturbed).
func modelGap(ratios []float64, disturbed bool) string {
	if len(ratios) == 0 {
		return ""
	}
	lo, hi := slices.Min(ratios), slices.Max(ratios)
	others := ""
	if disturbed {
		others = " (and other programs, in the runs marked disturbed)"
	}
	switch {
	case hi <= 1+2*sameWithin:
		return " Every run kept within 20% of the model: the loaders found spare cores."
	case lo > 1+2*sameWithin:
		return fmt.Sprintf(" Every run took %.1f–%.1f× the model's time: the loaders and the step shared the cores%s, which the model leaves out.", lo, hi, others)
	}
	return fmt.Sprintf(" Some runs kept near the model and some took up to %.1f× its time: where they fell behind, the loaders and the step shared the cores%s.", hi, others)
}

// sweepPoint is one live run of the loader sweep as ReadSweep reads it.
type sweepPoint struct {
	Workers   int
	PerStep   time.Duration // measured wall time per step with the loader
	StepAlone time.Duration // the step's own median, batch resident
	Running   float64       // share of the wall time a step was running (contended), 0–1
	Disturbed bool
}

// byWorkers is a copy of runs in ascending worker count (workers reads a run's).
func byWorkers[T any](runs []T, workers func(T) int) []T {
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b T) int { return workers(a) - workers(b) })
	return runs
}

// sameWithin is how far apart (relative) two times per step may be and still read as the same.
const sameWithin = 0.10

// ReadSweep says what the live sweep's times per step show, decided from them: whether more
// workers fed the device (the time per step fell), made it slower (oversubscription: no spare
// cores) or changed nothing, and whether the contended "step running" share rose meanwhile.
func ReadSweep(rs []results.Result) string {
	var pts []sweepPoint
	cores := 0
	for _, r := range rs {
		if r.Provenance.Recorded || r.Seconds() <= 0 {
			continue
		}
		cores = int(metric(r, ParamCores))
		pts = append(pts, sweepPoint{Workers: r.Params[ParamWorkers], PerStep: r.Stats.Median,
			StepAlone: time.Duration(metric(r, ParamStepUS) * 1e3), Running: metric(r, ParamUtilPM) / 1000,
			Disturbed: results.WhyDisturbed(r) != ""})
	}
	return readSweep(pts, cores)
}

func readSweep(pts []sweepPoint, cores int) string {
	if len(pts) == 0 {
		return "No live loader sweep: run the sweep cell first."
	}
	pts = byWorkers(pts, func(p sweepPoint) int { return p.Workers })
	first, last, best := pts[0], pts[len(pts)-1], pts[0]
	for _, p := range pts {
		if p.PerStep < best.PerStep {
			best = p
		}
	}
	d := func(t time.Duration) string { return units.Duration(t.Seconds()) }
	slower := func(a, b sweepPoint) bool { return float64(b.PerStep) > (1+sameWithin)*float64(a.PerStep) }
	var b strings.Builder
	switch {
	case len(pts) == 1:
		fmt.Fprintf(&b, "%d worker(s): %s per step, against %s for the step alone.", first.Workers, d(first.PerStep), d(first.StepAlone))
	case !slower(sweepPoint{PerStep: first.StepAlone}, first):
		fmt.Fprintf(&b, "Already %d worker(s) kept pace: %s per step, the step alone takes %s.", first.Workers, d(first.PerStep), d(first.StepAlone))
	case best.Workers != first.Workers && slower(best, first):
		fmt.Fprintf(&b, "More workers fed the device: %s per step with %d worker(s), %s with %d.", d(first.PerStep), first.Workers, d(best.PerStep), best.Workers)
		if last.Workers > best.Workers && slower(best, last) {
			fmt.Fprintf(&b, " Beyond %d, steps got slower again (%s with %d): more workers than spare cores is oversubscription.", best.Workers, d(last.PerStep), last.Workers)
		}
	case slower(first, last):
		fmt.Fprintf(&b, "More workers made each step slower (%s with %d worker(s), %s with %d): the step and the loaders share %d cores, "+
			"so with no spare core each extra worker competes with the step. That is oversubscription.", d(first.PerStep), first.Workers, d(last.PerStep), last.Workers, cores)
	default:
		fmt.Fprintf(&b, "The time per step barely moved (%s with %d worker(s), %s with %d): the extra workers found no spare cores.",
			d(first.PerStep), first.Workers, d(last.PerStep), last.Workers)
	}
	if len(pts) > 1 && last.Running > first.Running+0.02 && slower(first, last) {
		fmt.Fprintf(&b, " The share of time a step was running still rose (%.0f%% → %.0f%%): each step ran slower beside the loaders, so that share is no sign of being fed.",
			100*first.Running, 100*last.Running)
	}
	for _, p := range pts {
		if p.Disturbed {
			b.WriteString(" Other programs disturbed some runs (marked in the table): rerun when the machine is quiet before trusting the trend.")
			break
		}
	}
	return b.String()
}

// ReadShares says, from the kept step parts, the matmuls' share of the FLOPs and of the time, and
// the whole step's time against the sum of its parts.
func ReadShares(rs []results.Result) string {
	shares, step, dev := Shares(rs)
	var mm *Share
	sum := 0.0
	for i, s := range shares {
		sum += s.Seconds
		if s.Part == string(workloads.PartMatMuls) {
			mm = &shares[i]
		}
	}
	if mm == nil || sum == 0 {
		return "No step parts kept: run the op-class cell above first."
	}
	s := fmt.Sprintf("Your %s: the matmuls do %.0f%% of the FLOPs in %.0f%% of the parts' time; the other classes %.0f%% of the FLOPs in %.0f%% of the time.",
		dev, 100*mm.FLOPs, 100*mm.Time, 100*(1-mm.FLOPs), 100*(1-mm.Time))
	if step.Seconds() > 0 {
		disturbed := results.WhyDisturbed(step) != ""
		for _, p := range shares {
			disturbed = disturbed || p.Disturbed != ""
		}
		ratio, refused := stepshares.Whole(step.Seconds(), sum, disturbed)
		switch {
		case refused != "":
			s += " The whole step against its parts: " + refused + "."
		case ratio < 1:
			s += fmt.Sprintf(" The whole step, one executable, took %.0f%% of the parts' sum: one call instead of several.", 100*ratio)
		default:
			s += fmt.Sprintf(" The whole step, one executable, took %.0f%% of the parts' sum: no saving from one call here.", 100*ratio)
		}
	}
	return s
}
