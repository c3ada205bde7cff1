package main

import (
	"fmt"
	"io"
	"time"

	"github.com/gpu-course/whygpu/lessons/batching"
	"github.com/gpu-course/whygpu/lessons/datamovement"
	"github.com/gpu-course/whygpu/lessons/memory"
	"github.com/gpu-course/whygpu/lessons/race"
	"github.com/gpu-course/whygpu/lessons/roofline"
	"github.com/gpu-course/whygpu/lessons/smallgpt"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// The recording plan: which experiment `whygpu record -group N` runs in which call of a GPU lease,
// in priority order, with an estimate of its cost. A lent GPU machine gives 15 minutes in all and at
// most 10 minutes a command, so the recording is split into groups that each fit one call
// (GroupBudget); group 1 holds what replaces the most modeled numbers (scripts/gpu-record.sh runs
// the PyTorch/JAX comparison after it), group 2 the rest that fits the same lease's second call,
// group 3 the long sweeps (a later lease).
//
// The estimates are a model, not a measurement: compiles × CompileSeconds (an assumed XLA GPU
// compile of a small graph, autotuning included) plus the seconds of timed runs the experiment's
// options ask for (warm-ups, samples, training steps) at GPU scale. The first recording's manifest
// has each experiment's real wall time (record.json "seconds"): correct the figures here from it.

// CompileSeconds is the assumed wall time of one XLA compile on a GPU (a model: not yet measured).
const CompileSeconds = 1.5

// GroupBudget is the most an experiment group of `whygpu record` may be estimated to take: the
// device tool's 10-minute command limit less margin, and less what gpu-record.sh runs around it.
var GroupBudget = map[int]time.Duration{1: 190 * time.Second, 2: 250 * time.Second, 3: 420 * time.Second}

// Groups are the plan's groups in order.
var Groups = []int{1, 2, 3}

// planned is one experiment in the plan.
type planned struct {
	ID       string
	Group    int
	Compiles int     // graphs compiled (each a CompileSeconds)
	RunS     float64 // seconds of timed runs beyond compiling
	Basis    string  // what the compile count is counted from
	// Variant, when set, replaces the experiment's Run for this group (a reduced grid recorded under
	// the same id; the full experiment later in the plan replaces it).
	Variant string
	Run     func(*devices.Device, experiments.Scale) ([]results.Result, error)
}

// Estimate is the planned wall time of the experiment.
func (p planned) Estimate() time.Duration {
	return time.Duration((float64(p.Compiles)*CompileSeconds + p.RunS) * float64(time.Second))
}

// stepS is the timed part of one training step of experiments.StepTiming on a GPU: 2 warm-ups and
// 7 samples of ≥ 10 ms, plus the float64 check of a small step.
const stepS = 0.12

// reducedRaceSizes is the race's GPU grid thinned to every other batch and width (the ends kept):
// lesson 1's sliders find a recorded lane at these stops and the model between them until the full
// sweep (group 2) replaces it.
func reducedRaceSizes(s experiments.Scale) []experiments.Size {
	thin := func(xs []int) []int {
		var out []int
		for i, x := range xs {
			if i%2 == 0 || i == len(xs)-1 {
				out = append(out, x)
			}
		}
		return out
	}
	return experiments.Grid(thin(race.Batches), thin(experiments.Pick(s, []int{race.SweepHidden}, race.Hiddens)))
}

// recordPlan is the plan at GPU scale, in the order each group runs.
func recordPlan() []planned {
	g := experiments.GPU
	n := func(xs ...int) int {
		t := 0
		for _, x := range xs {
			t += x
		}
		return t
	}
	reduced := reducedRaceSizes(g)
	full := race.SweepSizes(g)
	pts := len(roofline.SizesFor(g).Workloads())
	crit := roofline.BatchSweepFor(g)
	critN := len(crit.Batches) * len(crit.Types)
	ctx := len(smallgpt.SweepLengths(g))
	bsweep := 2 * len(batching.Batches(g))
	wsweep := len(batching.Widths(g))
	mem := len(memory.Batches(g))
	hier := len(roofline.HierarchyFor(g).Workloads())
	xfer := len(datamovement.TransferSizes(g))
	return []planned{
		// Group 1: the numbers the course now models, in the order they matter.
		{ID: race.Lesson + "/" + race.StepSweepName, Group: 1, Compiles: len(reduced), RunS: float64(len(reduced)) * stepS,
			Basis:   fmt.Sprintf("one step per size of the reduced race grid (%d of %d sizes)", len(reduced), len(full)),
			Variant: fmt.Sprintf("reduced grid: %d of the race's %d sizes (every other batch and width, ends kept)", len(reduced), len(full)),
			Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
				return experiments.Sweep(dev, reducedRaceSizes(s), experiments.StepTiming, nil)
			}},
		{ID: "02-roofline/points", Group: 1, Compiles: pts + 3, RunS: 20, Basis: fmt.Sprintf("%d roofline workloads + 3 ceiling workloads (matmul, layernorm, copy)", pts)},
		{ID: "09-small-gpt/train", Group: 1, Compiles: 2, RunS: float64(smallgpt.Steps(g)) * 0.02, Basis: fmt.Sprintf("a train and a loss graph; %d steps", smallgpt.Steps(g))},
		{ID: "02-roofline/ridge-batch", Group: 1, Compiles: critN, RunS: float64(critN) * 0.1, Basis: fmt.Sprintf("%d batches × %d dtypes", len(crit.Batches), len(crit.Types))},

		// Group 2: the rest that fits the lease's second call, cheapest first.
		{ID: "00-setup-check/matmul", Group: 2, Compiles: 1, RunS: 2, Basis: "one 8192³ matmul"},
		{ID: race.Lesson + "/" + race.HookName, Group: 3, Compiles: 6, RunS: 4, Basis: "2 graphs × (as is, 2× FLOPs, 2× bytes) (lesson 01's first measurement)"},
		{ID: "01-race/small-vs-large", Group: 2, Compiles: len(race.SplitSides), RunS: 4, Basis: fmt.Sprintf("%d split sides", len(race.SplitSides))},
		{ID: "04-moving-data/transfer-sweep", Group: 2, Compiles: 0, RunS: float64(2*xfer) * 0.3, Basis: fmt.Sprintf("%d sizes × 2 directions, no graph", xfer)},
		{ID: "04-moving-data/resident", Group: 2, Compiles: 3, RunS: 3, Basis: "three feeding variants of one step"},
		{ID: "04-moving-data/sync-variants", Group: 2, Compiles: 3, RunS: 5, Basis: "three loops of one step"},
		{ID: "04-moving-data/unsynced", Group: 2, Compiles: 1, RunS: 2, Basis: "one matmul, two clocks"},
		{ID: "05-precision/matmul-dtypes", Group: 2, Compiles: 5, RunS: 5, Basis: "float64, float32, TF32, bfloat16, float16"},
		{ID: "05-precision/mixed-precision", Group: 2, Compiles: 6, RunS: 10, Basis: "3 dtypes × (train step + loss)"},
		{ID: "06-memory/batch-memory", Group: 2, Compiles: mem, RunS: float64(mem), Basis: fmt.Sprintf("%d batches", mem)},
		{ID: "06-memory/compiled-memory", Group: 2, Compiles: mem, RunS: float64(mem), Basis: fmt.Sprintf("%d batches", mem)},
		{ID: "07-feeding-the-device/launch-bound", Group: 2, Compiles: 6, RunS: 3, Basis: "one executable per op + one fused"},
		{ID: "07-feeding-the-device/fusion", Group: 2, Compiles: 9, RunS: 3, Basis: "8 one-op executables + one graph"},
		{ID: "07-feeding-the-device/step-parts", Group: 2, Compiles: 5, RunS: 3, Basis: "4 op classes + the whole step"},
		{ID: "07-feeding-the-device/double-the-work", Group: 2, Compiles: 6, RunS: 4, Basis: "3 workloads × 2 sizes"},
		{ID: "07-feeding-the-device/oversubscription", Group: 2, Compiles: n(1, 2, 4, 8), RunS: 8, Basis: "one instance per worker, 1+2+4+8"},
		{ID: "07-feeding-the-device/workers-sweep", Group: 2, Compiles: 1, RunS: 15, Basis: "one step, fed by 1…16 loader workers"},
		{ID: "08-whole-picture/batch1-inference", Group: 2, Compiles: 1, RunS: 1, Basis: "one forward"},
		{ID: "08-whole-picture/step-rate", Group: 2, Compiles: 1, RunS: 3, Basis: "one Adam step"},
		{ID: "09-small-gpt/step-parts", Group: 2, Compiles: 6, RunS: 4, Basis: "5 op classes + the whole step"},
		{ID: "09-small-gpt/context-sweep", Group: 2, Compiles: ctx, RunS: float64(ctx), Basis: fmt.Sprintf("%d sequence lengths", ctx)},
		{ID: "10-data-parallel/allreduce", Group: 2, Compiles: 0, RunS: 1, Basis: "skipped on one GPU (needs ≥ 2 devices)"},
		{ID: "11-capstone/step", Group: 2, Compiles: 1, RunS: 3, Basis: "one 4096×4096 step"},

		// Group 3 (a later lease): the long sweeps, the full race grid last.
		{ID: "02-roofline/hierarchy", Group: 3, Compiles: hier, RunS: float64(hier) * 0.3, Basis: fmt.Sprintf("%d working sets × ops", hier)},
		{ID: "03-batch-and-width/width-sweep", Group: 3, Compiles: wsweep, RunS: float64(wsweep) * stepS, Basis: fmt.Sprintf("%d widths", wsweep)},
		{ID: "03-batch-and-width/batch-sweep", Group: 3, Compiles: bsweep, RunS: float64(bsweep) * stepS, Basis: fmt.Sprintf("%d batches × 2 widths", bsweep/2)},
		{ID: race.Lesson + "/" + race.StepSweepName, Group: 3, Compiles: len(full), RunS: float64(len(full)) * stepS,
			Basis: fmt.Sprintf("one step per size of the race's full grid (%d sizes; replaces group 1's reduced grid)", len(full))},
	}
}

// planGroup returns the plan entries of a group, in the order they run.
func planGroup(group int) []planned {
	var out []planned
	for _, p := range recordPlan() {
		if p.Group == group {
			out = append(out, p)
		}
	}
	return out
}

// estimateOf is the plan's estimate of experiment id (the full experiment's, when the plan also
// has a reduced variant), or 0 when the plan does not know it.
func estimateOf(id string) time.Duration {
	var d time.Duration
	for _, p := range recordPlan() {
		if p.ID == id && (d == 0 || p.Variant == "") {
			d = p.Estimate()
		}
	}
	return d
}

// groupExperiments resolves a group's plan into the experiments to run: the listed experiment,
// with a variant's Run in its place.
func groupExperiments(list experiments.List, group int) ([]experiments.Experiment, []planned, error) {
	ps := planGroup(group)
	if len(ps) == 0 {
		return nil, nil, fmt.Errorf("record: no group %d in the plan (groups: 1, 2, 3; see whygpu record -plan)", group)
	}
	var exps []experiments.Experiment
	for _, p := range ps {
		e, ok := list.Lookup(p.ID)
		if !ok {
			return nil, nil, fmt.Errorf("record: the plan names %s, which no lesson lists", p.ID)
		}
		if p.Run != nil {
			e.Run = p.Run
		}
		exps = append(exps, e)
	}
	return exps, ps, nil
}

// printPlan writes the plan: each experiment's compile count and estimate, and each group's total
// against its budget. The last line of each group is "group N: … s estimated of a … s budget".
func printPlan(w io.Writer) {
	fmt.Fprintf(w, "recording plan at GPU scale (estimates are a model: compiles × %.1f s assumed per XLA GPU compile + timed runs)\n", CompileSeconds)
	for _, g := range Groups {
		var total time.Duration
		compiles := 0
		fmt.Fprintf(w, "group %d:\n", g)
		for _, p := range planGroup(g) {
			total += p.Estimate()
			compiles += p.Compiles
			what := p.Basis
			if p.Variant != "" {
				what = p.Variant
			}
			fmt.Fprintf(w, "  %-40s %4d compiles  ~%4.0f s  %s\n", p.ID, p.Compiles, p.Estimate().Seconds(), what)
		}
		fmt.Fprintf(w, "group %d: %d experiments, %d compiles, %.0f s estimated of a %.0f s budget\n",
			g, len(planGroup(g)), compiles, total.Seconds(), GroupBudget[g].Seconds())
	}
}
