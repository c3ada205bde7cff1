package feeding

import (
	"fmt"
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
// kernel and fused-op counts from XLA's optimized HLO in its Metrics.
func Fusion(dev *devices.Device, c Chain) ([]results.Result, error) {
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

// FusionTable shows time, effective bandwidth (minimum bytes ÷ time) and kernels per chain.
func FusionTable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, r := range rs {
		disturbed = append(disturbed, results.WhyDisturbed(r))
		rows = append(rows, []string{r.Label, r.Provenance.Label(), units.Duration(r.Seconds()),
			units.SI(r.Bytes, "B"), units.SI(r.BytesPerSec(), "B/s"),
			fmt.Sprintf("%s, %d ops fused (XLA's optimized HLO)", kernels(int(metric(r, ParamKernels))), int(metric(r, ParamFusedOps)))})
	}
	return units.Table{Origins: append(results.Origins(rs), units.Formula("memory traffic: the chain's bytes formula")), Header: []string{"chain", "device", "time (median)", "memory traffic (formula)", "bandwidth", "what XLA compiled"}, Rows: rows, Disturbed: disturbed}
}

// FusionSpeedup is "one graph is 6.1× faster than 8 executables on xla:cpu" for each device.
func FusionSpeedup(rs []results.Result) string {
	var b strings.Builder
	un := map[string]results.Result{}
	for _, r := range rs {
		if r.Params["fused"] == 0 {
			un[r.Provenance.Label()] = r
		}
	}
	for _, r := range rs {
		if u, ok := un[r.Provenance.Label()]; ok && r.Params["fused"] == 1 {
			fmt.Fprintf(&b, "%s: one graph is %.1f× faster than %d executables (%s vs %s)\n",
				r.Provenance.Label(), u.Seconds()/r.Seconds(), u.Params["ops"], kernels(int(metric(r, ParamKernels))), kernels(int(metric(u, ParamKernels))))
		}
	}
	return b.String()
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
// bytes ÷ the bandwidth) against its time, and the regime they name (regime.Table).
func DoubleTable(rs []results.Result) units.Table { return regime.Table(rs) }

func kernels(n int) string {
	if n == 1 {
		return "1 kernel"
	}
	return fmt.Sprintf("%d kernels", n)
}
