package feeding

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gomlx/gomlx/core/tensors"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/stepshares"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/launch"
)

// Names the step-time results are kept under between cells.
const (
	KeepParts  = Lesson + "-step-parts"
	KeepFusion = Lesson + "-fusion"
	KeepDouble = Lesson + "-double"
)

// Names of the fusion results' counted values (Metrics: the kernels and fused operations XLA
// compiled) and of the double-the-work results' sizes (Params).
const (
	ParamKernels  = "kernels"
	ParamFusedOps = "fused_ops"
	ParamSize     = regime.ParamSize // double-the-work: 1 for the base size, 2 for the doubled one
	ParamPair     = regime.ParamPair // double-the-work: which pair
)

var steptimeExperiments = experiments.List{
	{
		Lesson: Lesson, Name: "step-parts",
		Doc: "the MLP training step's op classes (matmuls, bias+activation, loss, optimizer) timed apart, and the whole step",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return StepParts(dev, DefaultNet(s), nil)
		},
	},
	{
		Lesson: Lesson, Name: "fusion",
		Doc: "8 elementwise ops over ~128 MB as 8 executables vs one graph, with XLA's kernel count",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return Fusion(dev, DefaultChain(s))
		},
	},
	{
		Lesson: Lesson, Name: "double-the-work",
		Doc: "each workload at its size and at twice it: overhead-, memory- or compute-bound",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return DoubleWork(dev, DefaultDoubling(s), nil)
		},
	},
}

// PartsModel is the network whose step is split: the pipeline's model with Adam, so the optimizer
// has work worth seeing.
func PartsModel(s experiments.Scale) workloads.MLP { return DefaultNet(s).parts() }

// parts is n trained with Adam, the step-parts experiment's network.
func (n Net) parts() workloads.MLP {
	w := n.mlp()
	w.Optimizer = workloads.Adam
	return w
}

// StepParts times each op class of n's step (Adam) on its own (checked against float64), then the
// whole step. progress, if not nil, is told after each.
func StepParts(dev *devices.Device, n Net, progress func(done, total int)) ([]results.Result, error) {
	w := n.parts()
	var ws []workloads.Workload
	for _, p := range workloads.StepParts {
		ws = append(ws, workloads.MLPPart{MLP: w, Part: p})
	}
	ws = append(ws, w)
	var out []results.Result
	for i, x := range ws {
		_, isPart := x.(workloads.MLPPart)
		r, err := measure.Run(dev, x, measure.Options{Warmup: 2, Reps: 5, SampleTime: 2e6}, isPart)
		if err != nil {
			return out, err
		}
		if isPart && r.RelErr > r.Tolerance {
			return out, fmt.Errorf("%s: %s is wrong (relative error %.2g)", Lesson, x, r.RelErr)
		}
		out = append(out, r)
		if progress != nil {
			progress(i+1, len(ws))
		}
	}
	return out, nil
}

// StepPartsOnEachDevice runs StepParts of the cell's network live on every XLA device, adds
// recordings (at the network they were recorded with: DefaultNet of the GPU scale on a GPU), keeps
// them. A network Validate refuses is refused before anything is allocated.
func StepPartsOnEachDevice(n Net, progress func(done, total int)) ([]results.Result, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "step-parts", KeepParts, func(d *devices.Device) ([]results.Result, error) {
		return StepParts(d, n, progress)
	})
}

// Share is one op class's share of the step's FLOPs and of the parts' summed time.
type Share = stepshares.Share

// Shares splits one device's parts results (the first device in rs, live before recorded) into
// FLOP and time shares, and returns the whole step's time too.
func Shares(rs []results.Result) (shares []Share, step results.Result, device string) {
	return stepshares.Of(rs, "mlp-part-")
}

// SharesChart draws, per op class, its share of the FLOPs next to its share of the time.
func SharesChart(rs []results.Result) (*plot.Plot, error) { return stepshares.Chart(rs, "mlp-part-") }

// SharesTable lists the shares and compares the parts' sum with the whole step.
func SharesTable(rs []results.Result) units.Table { return stepshares.Table(rs, "mlp-part-") }

// FusionChain is the fusion experiment's chain: 8 ops over 32 Mi float32 (128 MiB) on a laptop,
// 256 Mi (1 GiB) on a GPU.
func FusionChain(s experiments.Scale, fused bool) launch.ElementwiseChain {
	return DefaultChain(s).chain(fused)
}

// KernelsOf compiles the chain (on a small array: the kernel count does not depend on its size)
// and counts the kernels and fused operations XLA made of all its executables (pkg/measure/hlo).
func KernelsOf(dev *devices.Device, w launch.ElementwiseChain) (kernels, fusedOps int, err error) {
	small := w
	small.N = 1024
	es, err := small.Executables(dev)
	if err != nil {
		return 0, 0, err
	}
	for _, e := range es {
		x := tensors.FromValue(make([]float32, small.N))
		r, err := hlo.Inspect(e, x)
		e.Finalize()
		if err != nil {
			return 0, 0, err
		}
		kernels += r.Kernels.Total
		fusedOps += r.Kernels.FusedOps
	}
	return kernels, fusedOps, nil
}

// Fusion measures the chain c fused and unfused (checked against float64) and records each one's
// kernel and fused-op counts from XLA's optimized HLO in its Metrics; each result carries the
// device's measured ceilings (measured first when none are cached), for BytesExplain.
func Fusion(dev *devices.Device, c Chain) ([]results.Result, error) {
	if _, err := measure.MeasureCeilings(dev); err != nil { // the bandwidth each row's bytes are set against (cached)
		return nil, err
	}
	var out []results.Result
	for _, fused := range []bool{false, true} {
		w := c.chain(fused)
		r, err := measure.Run(dev, w, measure.Options{Warmup: -1, Reps: 3}, true) // the check warmed it up
		if err != nil {
			return out, err
		}
		if r.RelErr > r.Tolerance {
			return out, fmt.Errorf("%s: %s is wrong (relative error %.2g)", Lesson, w, r.RelErr)
		}
		k, f, err := KernelsOf(dev, w)
		if err != nil && err != hlo.ErrNotXLA {
			return out, err
		}
		r.SetMetric(ParamKernels, float64(k))
		r.SetMetric(ParamFusedOps, float64(f))
		out = append(out, r)
	}
	return out, nil
}

// FusionOnEachDevice runs Fusion of the cell's chain live on every XLA device, adds recordings (at
// the chain they were recorded with: 256 Mi values on a GPU), keeps them. A chain Validate refuses is
// refused before anything is allocated.
func FusionOnEachDevice(c Chain) ([]results.Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "fusion", KeepFusion, func(d *devices.Device) ([]results.Result, error) { return Fusion(d, c) })
}

// explainCell is the share of r's time its larger budget explains (regime.Verdict.Explained: for
// the chain, its bytes ÷ the measured bandwidth ÷ its time), "—" when unclassified.
func explainCell(v regime.Verdict) string {
	if v.Explained <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", 100*v.Explained)
}

// compiled says what XLA built: "1 kernel, 8 ops fused", or "8 kernels, 1 op each" when every
// kernel holds one operation.
func compiled(k, fusedOps int) string {
	switch {
	case k > 1 && fusedOps == k:
		return fmt.Sprintf("%d kernels, 1 op each", k)
	case fusedOps == 1:
		return kernels(k) + ", 1 op"
	}
	return fmt.Sprintf("%s, %d ops fused", kernels(k), fusedOps)
}

// FusionTable shows time, effective bandwidth (minimum bytes ÷ time), the share of the time the
// budgets explain with the regime they name (regime.Budget.Classify: the lesson's one rule), and
// the kernels per chain.
func FusionTable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, r := range rs {
		disturbed = append(disturbed, results.WhyDisturbed(r))
		v := regime.Of(r).Classify()
		rows = append(rows, []string{r.Label, r.Provenance.Label(), units.Duration(r.Seconds()),
			units.SI(r.Bytes, "B"), units.SI(r.BytesPerSec(), "B/s"), explainCell(v), v.Regime,
			compiled(int(metric(r, ParamKernels)), int(metric(r, ParamFusedOps))) + " (XLA's optimized HLO)"})
	}
	return units.Table{Origins: append(results.Origins(rs), units.Formula("memory traffic: the chain's bytes formula")),
		Header: []string{"chain", "device", "time (median)", "memory traffic (formula)", "bandwidth", "explained (bytes ÷ measured bandwidth ÷ time)", "verdict", "what XLA compiled"},
		Rows:   rows, Disturbed: disturbed}
}

// FusionSpeedup says, per device, how much faster one graph ran than the separate executables, and
// what the budgets make of each time (fusionReading).
func FusionSpeedup(rs []results.Result) string {
	var b strings.Builder
	un := map[string]results.Result{}
	for _, r := range rs {
		if r.Params["fused"] == 0 {
			un[r.Provenance.Label()] = r
		}
	}
	for _, r := range rs {
		u, ok := un[r.Provenance.Label()]
		if !ok || r.Params["fused"] != 1 {
			continue
		}
		b.WriteString(fusionReading(r.Provenance.Label(), u.Params["ops"], u.Seconds()/r.Seconds(),
			regime.Of(u).Classify(), regime.Of(r).Classify(), results.WhyDisturbed(u, r) != ""))
		b.WriteString("\n")
	}
	return b.String()
}

// fusionReading is FusionSpeedup's sentence for one device, decided from the two verdicts: both
// memory-bandwidth-bound (fusion cut the bytes), or below the ceiling (the ratio is the lesson,
// not the rates), or no verdict at all.
func fusionReading(dev string, ops int, speedup float64, unfused, fused regime.Verdict, disturbed bool) string {
	s := fmt.Sprintf("%s: one graph is %.1f× faster than %d executables.", dev, speedup, ops)
	pct := func(v regime.Verdict) string { return fmt.Sprintf("%.0f%%", 100*v.Explained) }
	switch {
	case unfused.Regime == regime.Memory && fused.Regime == regime.Memory:
		s += fmt.Sprintf(" The bytes explain %s and %s of the times: both are memory-bandwidth-bound, and fusion cut the bytes.", pct(unfused), pct(fused))
	case unfused.Regime == regime.Memory && fused.Regime == regime.Overhead:
		s += fmt.Sprintf(" The bytes explain %s of the separate executables' time (memory-bandwidth-bound) but only %s of the graph's: the rest of its time is fixed cost.", pct(unfused), pct(fused))
	case unfused.Regime == regime.Overhead && fused.Regime == regime.Overhead && unfused.FreshMemory() && fused.FreshMemory():
		s += fmt.Sprintf(" The bytes explain only %s and %s of the times: every executable writes its output into fresh memory (%s and %s a run), "+
			"and at the cost of a page fault measured here that first touch takes %s and %s (T_fresh), most of what the bytes leave — "+
			"overhead, but one that grows with the bytes written, which fusion cut as well. (A GPU framework's caching allocator reuses memory and pays none.)",
			pct(unfused), pct(fused), units.Bytes(unfused.FreshBytes), units.Bytes(fused.FreshBytes), units.Duration(unfused.TFresh), units.Duration(fused.TFresh))
	case unfused.Regime == regime.Overhead && fused.Regime == regime.Overhead:
		s += fmt.Sprintf(" The bytes explain only %s and %s of the times: both ran well below the measured bandwidth, so the ratio, not the rate, is the lesson.", pct(unfused), pct(fused))
	case unfused.Regime == regime.Overhead && fused.Regime == regime.Memory:
		s += fmt.Sprintf(" The bytes explain only %s of the separate executables' time but %s of the graph's (memory-bandwidth-bound): fusion cut fixed costs as well as bytes.", pct(unfused), pct(fused))
	case unfused.Why != "" || fused.Why != "":
		why := unfused.Why
		if why == "" || (fused.Why != "" && fused.Why != why) {
			why = strings.TrimPrefix(why+"; "+fused.Why, "; ")
		}
		s += " The budgets give no verdict (" + why + "): read the ratio, not the rates."
	default:
		s += fmt.Sprintf(" The bytes explain %s and %s of the times (%s, %s).", pct(unfused), pct(fused), unfused.Regime, fused.Regime)
	}
	if disturbed {
		s += " Other programs disturbed these runs: rerun when quiet."
	}
	return s
}

// DoubleWork measures every pair of d.Pairs at its size and twice it (regime.Double), so each run
// can be set against its two time budgets.
func DoubleWork(dev *devices.Device, d Doubling, progress func(done, total int)) ([]results.Result, error) {
	return regime.Double(dev, d.Pairs(), progress)
}

// DoubleOnEachDevice runs DoubleWork of the cell's sizes live on every XLA device, adds recordings
// (at the sizes they were recorded with: DefaultDoubling of the GPU scale on a GPU), keeps them. Sizes
// Validate refuses are refused before anything is allocated.
func DoubleOnEachDevice(d Doubling, progress func(done, total int)) ([]results.Result, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "double-the-work", KeepDouble, func(dev *devices.Device) ([]results.Result, error) {
		return DoubleWork(dev, d, progress)
	})
}

// DoubleTable shows every run measured with its two time budgets (FLOPs ÷ the compute ceiling,
// bytes ÷ the bandwidth) against its time, and the regime they name (regime.Table); a doubled run's
// ratio to its base is withheld when the base run was disturbed, and flagged when doubling the work
// took less time (ratioCell).
func DoubleTable(rs []results.Result) units.Table {
	t := regime.Table(rs)
	col := slices.Index(t.Header, "vs base")
	if col < 0 {
		return t
	}
	for i, p := range regime.Pairs(rs) {
		if row := 2*i + 1; row < len(t.Rows) && col < len(t.Rows[row]) {
			t.Rows[row][col] = ratioCell(p.T1, p.T2, results.WhyDisturbed(p.Base) != "")
		}
	}
	return t
}

// ratioCell is a doubled run's time over its base's: "—" when the base run was disturbed (the
// ratio would be the neighbours' as much as the work's), and flagged below 0.9× (twice the work in
// less time is noise or a first-run cost).
func ratioCell(t1, t2 float64, baseDisturbed bool) string {
	switch {
	case t1 <= 0 || t2 <= 0:
		return "—"
	case baseDisturbed:
		return "— (base run disturbed)"
	case t2/t1 < 0.9:
		return fmt.Sprintf("%.2f× (< 1: noise, rerun)", t2/t1)
	}
	return fmt.Sprintf("%.2f×", t2/t1)
}

func kernels(n int) string {
	if n == 1 {
		return "1 kernel"
	}
	return fmt.Sprintf("%d kernels", n)
}
