// Package capstone is the code behind notebooks/11-capstone.ipynb: plan a 125 M-parameter,
// 10 B-token training run from the MFU this machine measures and from the GPU model (or a
// recording), then tune batch size, dtype and loader workers for samples/s here.
//
// Every size the notebook uses is a field with a visible default (Run, Grid), checked by Validate
// before anything is allocated.
package capstone

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
	"github.com/gpu-course/whygpu/pkg/workloads/train"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "11-capstone"

// Keep names of the cells' results.
const (
	KeepStep = Lesson + "-step"
	keepTune = Lesson + "-tune.json"
)

// ---- plan ----

// Run is the training run to plan.
type Run struct {
	Params float64 // model parameters: 125e6
	Tokens float64 // training tokens: 10e9
}

// Planned is the run the notebook starts from: 125 M parameters, 10 B tokens.
var Planned = Run{Params: 125e6, Tokens: 10e9}

// Validate refuses sizes outside what the plan's formula means.
func (r Run) Validate() error {
	if !(r.Params >= 1e3 && r.Params <= 1e13) {
		return fmt.Errorf("%s: %g parameters is outside 10³…10¹³", Lesson, r.Params)
	}
	if !(r.Tokens >= 1e3 && r.Tokens <= 1e15) {
		return fmt.Errorf("%s: %g tokens is outside 10³…10¹⁵", Lesson, r.Tokens)
	}
	return nil
}

// FLOPs is 6·N·T: 2 per parameter per token forward, about 4 backward.
func (r Run) FLOPs() float64 { return 6 * r.Params * r.Tokens }

// StepShape is the shape of the training step whose achieved FLOP/s stands in for the run's here,
// as the learner writes it in a cell: an MLP (784 inputs, two hidden layers of Hidden, 10 outputs,
// float32, SGD) on batches of Batch, with matrices large enough to keep the cores busy.
type StepShape struct {
	Batch  int // samples per step
	Hidden int // hidden width
}

// DefaultStep is the step at a scale: batch 256, hidden 512 on a laptop (the notebook's literal);
// 4096, 4096 at GPU scale (what `whygpu record` records).
func DefaultStep(s experiments.Scale) StepShape {
	return experiments.Pick(s, StepShape{Batch: 256, Hidden: 512}, StepShape{Batch: 4096, Hidden: 4096})
}

// Limits of a StepShape, checked before anything is allocated.
const (
	MaxStepHidden = 8192
	MaxStepFLOPs  = 2e11 // one step: seconds on a laptop CPU, and it is timed several times
)

// Model is the step's MLP (its FLOPs come from workloads.MLP's formula).
func (z StepShape) Model() workloads.MLP {
	return workloads.MLP{Batch: z.Batch, In: 784, Hidden: z.Hidden, Out: 10, Depth: 2, Type: dtypes.Float32}
}

// Validate says why a step is refused: a batch or width out of range, or a step too large to time
// in seconds.
func (z StepShape) Validate() error {
	switch {
	case z.Batch < 1 || z.Batch > MaxBatch:
		return fmt.Errorf("%s: batch %d refused before anything is allocated: use 1…%d", Lesson, z.Batch, MaxBatch)
	case z.Hidden < 1 || z.Hidden > MaxStepHidden:
		return fmt.Errorf("%s: hidden width %d refused before anything is allocated: use 1…%d", Lesson, z.Hidden, MaxStepHidden)
	}
	if f := z.Model().FLOPs(); f > MaxStepFLOPs {
		return fmt.Errorf("%s: a step of %.3g FLOPs refused before anything is allocated: at most %.3g keep it in seconds (lower the batch or the width)", Lesson, f, float64(MaxStepFLOPs))
	}
	return nil
}

// StepModel is DefaultStep(s)'s MLP.
func StepModel(s experiments.Scale) workloads.MLP { return DefaultStep(s).Model() }

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = experiments.List{
	{
		Lesson: Lesson, Name: "step",
		Doc: "MLP training step, float32, SGD (laptop: batch 256, hidden 512; GPU: 4096, 4096): achieved FLOP/s for the plan",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			r, err := measure.Run(dev, StepModel(s), measure.Options{Warmup: 2, Reps: 5}, false)
			return []results.Result{r}, err
		},
	},
}

// StepHere times the learner's step on every XLA device here, with this device's measured matmul
// ceiling, adds recordings of devices not here (at the sizes they were recorded at), and keeps them.
func StepHere(z StepShape) ([]results.Result, error) {
	if err := z.Validate(); err != nil {
		return nil, err
	}
	w := z.Model()
	return experiments.OnEachDevice(Lesson, "step", KeepStep, func(d *devices.Device) ([]results.Result, error) {
		c, err := measure.MeasureCeilings(d)
		if err != nil {
			return nil, err
		}
		r, err := measure.Run(d, w, measure.Options{Warmup: 2, Reps: 5}, false)
		if err != nil {
			return nil, err
		}
		r.CeilingFLOPS = c.FLOPS["float32"]
		return []results.Result{r}, nil
	})
}

// PlanTable is the run's time on each measured device (at the step's achieved FLOP/s) and on the
// GPU model (a band at gpumodel.TrainingMFU of the bfloat16 peak: the rate a whole training step
// sustains, as lesson 08), with each row's source.
func PlanTable(run Run, steps []results.Result) (units.Table, error) {
	var header []string
	var rows [][]string
	var disturbed []string
	if err := run.Validate(); err != nil {
		return units.Table{}, err
	}
	header = []string{"where", "source", "sustained FLOP/s", "share of the measured matmul ceiling", "time for the run"}
	for _, r := range steps {
		src := r.Provenance.Origin()
		mfu := "—"
		if r.CeilingFLOPS > 0 {
			mfu = fmt.Sprintf("%.0f%%", 100*r.FLOPS()/r.CeilingFLOPS)
			if r.FLOPS() > r.CeilingFLOPS {
				mfu += " — over 100%: the ceiling was measured while the machine was busier (it is kept 12 h); rerun both when it is quiet"
			}
		}
		rows = append(rows, []string{r.Provenance.Label(), src, units.SI(r.FLOPS(), "FLOP/s"), mfu, units.Long(run.FLOPs() / r.FLOPS())})
		disturbed = append(disturbed, results.WhyDisturbed(r))
	}
	m := gpumodel.Default()
	lo, hi := m.RunTime(run.FLOPs(), "bfloat16")
	rows = append(rows, []string{m.Name(), m.MFUNote("bfloat16"),
		units.SI(run.FLOPs()/hi.Seconds(), "FLOP/s") + " – " + units.SI(run.FLOPs()/lo.Seconds(), "FLOP/s"),
		fmt.Sprintf("MFU %.0f–%.0f%% of the bf16 peak (not of a measured ceiling)", 100*gpumodel.TrainingMFU.High, 100*gpumodel.TrainingMFU.Low),
		units.Long(lo.Seconds()) + " – " + units.Long(hi.Seconds())})
	return units.Table{Origins: append(results.Origins(steps), units.Model(gpumodel.Default().MFUNote("bfloat16"))), Header: header, Rows: rows, Disturbed: disturbed,
		Notes: []string{gpumodel.ChangeLine("run")}}, nil
}

// PlanChart draws PlanTable's times on a log time axis: a bar per measured (or recorded) device at
// the FLOP/s its training step sustained, and the GPU model as a shaded band, never a bar.
func PlanChart(run Run, steps []results.Result) (*plot.Plot, error) {
	if err := run.Validate(); err != nil {
		return nil, err
	}
	var spans []charts.Span
	for _, r := range steps {
		if !(r.FLOPS() > 0) {
			continue
		}
		src, note := charts.Live, units.SI(r.FLOPS(), "FLOP/s")
		if r.Provenance.Recorded {
			src, note = charts.Recorded, r.Provenance.Model+", "+r.Provenance.Date.Format("2006-01-02")+", "+units.SI(r.FLOPS(), "FLOP/s")
		}
		spans = append(spans, charts.Span{Label: r.Provenance.Device, Seconds: run.FLOPs() / r.FLOPS(), Source: src, Note: note})
	}
	m := gpumodel.Default()
	lo, hi := m.RunTime(run.FLOPs(), "bfloat16")
	spans = append(spans, charts.Span{Label: m.Name(), Seconds: (lo.Seconds() + hi.Seconds()) / 2,
		Low: lo.Seconds(), High: hi.Seconds(), Source: charts.Model,
		Note: fmt.Sprintf("MFU %.0f–%.0f%% of bf16 peak (a whole step)", 100*gpumodel.TrainingMFU.High, 100*gpumodel.TrainingMFU.Low)})
	return charts.SpanBars(fmt.Sprintf("the run: %.3g parameters × %.3g tokens = %.3g FLOPs", run.Params, run.Tokens, run.FLOPs()), spans)
}

// ---- tune ----

// Grid is what the tuning sweep tries: every batch × dtype × workers.
type Grid struct {
	Batches   []int         // samples per step
	DTypes    []string      // "float32", "bfloat16", "float16"
	Workers   []int         // loader goroutines producing batches
	PerSample time.Duration // CPU work the loader does per sample (a decode-like loop)
	Steps     int           // timed steps per configuration
	Hidden    int           // hidden width of the MLP trained
}

// DefaultGrid runs in seconds on a 2-core laptop.
var DefaultGrid = Grid{Batches: []int{32, 128, 512}, DTypes: []string{"float32", "bfloat16"}, Workers: []int{1, 2},
	PerSample: 10 * time.Microsecond, Steps: 12, Hidden: 512}

// Limits of a Grid, checked before anything is allocated.
const (
	MaxBatch   = 65536
	MaxWorkers = 64
	MaxConfigs = 48
	MaxSteps   = 1000
)

var dtypeOf = map[string]dtypes.DType{"float32": dtypes.Float32, "bfloat16": dtypes.BFloat16, "float16": dtypes.Float16}

// Validate says why a grid is refused: sizes out of range, unknown dtypes, too many configurations.
func (g Grid) Validate() error {
	if len(g.Batches) == 0 || len(g.DTypes) == 0 || len(g.Workers) == 0 {
		return fmt.Errorf("%s: the grid needs at least one batch, dtype and worker count", Lesson)
	}
	for _, b := range g.Batches {
		if b < 1 || b > MaxBatch {
			return fmt.Errorf("%s: batch %d refused before allocating anything: use 1…%d (a batch of %d samples × %d inputs × 4 bytes would need %s for the inputs alone)",
				Lesson, b, MaxBatch, b, 784, units.Bytes(float64(b)*784*4))
		}
	}
	for _, d := range g.DTypes {
		if _, ok := dtypeOf[d]; !ok {
			return fmt.Errorf("%s: dtype %q: use float32, bfloat16 or float16", Lesson, d)
		}
	}
	for _, w := range g.Workers {
		if w < 1 || w > MaxWorkers {
			return fmt.Errorf("%s: %d loader workers: use 1…%d", Lesson, w, MaxWorkers)
		}
	}
	if n := len(g.Batches) * len(g.DTypes) * len(g.Workers); n > MaxConfigs {
		return fmt.Errorf("%s: %d configurations (batches × dtypes × workers); at most %d keep the sweep in minutes", Lesson, n, MaxConfigs)
	}
	if g.Steps < 1 || g.Steps > MaxSteps {
		return fmt.Errorf("%s: %d steps per configuration: use 1…%d", Lesson, g.Steps, MaxSteps)
	}
	if g.PerSample < 0 || g.PerSample > time.Millisecond {
		return fmt.Errorf("%s: %v of loader work per sample: use 0…1ms", Lesson, g.PerSample)
	}
	if g.Hidden < 1 || g.Hidden > 8192 {
		return fmt.Errorf("%s: hidden width %d: use 1…8192", Lesson, g.Hidden)
	}
	return nil
}

// Config is one point of the grid.
type Config struct {
	Batch   int
	DType   string
	Workers int
}

func (c Config) String() string {
	return fmt.Sprintf("batch %d, %s, %d worker(s)", c.Batch, c.DType, c.Workers)
}

// Point is one measured configuration.
type Point struct {
	Config
	SamplesPerSec float64 `json:"samples_per_s"`
	DeviceBusy    float64 `json:"device_busy"` // fraction of the wall time the device computed
	Device        string  `json:"device"`
	// Disturbance is what other programs and a CPU quota did while the point was measured.
	Disturbance results.Disturbance `json:"disturbance"`
}

// Tune trains from the loader at every configuration of g on the default device and keeps the
// points for the chart and the check. step reports progress.
func Tune(g Grid, step func(done, total int, what string)) ([]Point, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	total := len(g.Batches) * len(g.DTypes) * len(g.Workers)
	var out []Point
	for _, d := range g.DTypes {
		for _, b := range g.Batches {
			w := workloads.MLP{Batch: b, In: 784, Hidden: g.Hidden, Out: 10, Depth: 2, Type: dtypeOf[d]}
			if step != nil {
				step(len(out), total, fmt.Sprintf("compiling batch %d, %s", b, d))
			}
			t, err := w.NewTrainer(dev)
			if err != nil {
				return out, err
			}
			for _, k := range g.Workers {
				c := Config{Batch: b, DType: d, Workers: k}
				if step != nil {
					step(len(out), total, c.String())
				}
				probe := measure.StartProbe()
				rep, err := train.FromPipeline(t, data.Pipeline{Workers: k, CostPerBatch: g.PerSample * time.Duration(b)}, g.Steps)
				if err != nil {
					t.Close()
					return out, err
				}
				out = append(out, Point{Config: c, SamplesPerSec: float64(b*rep.Steps) / rep.Wall.Seconds(), DeviceBusy: rep.Utilization(), Device: dev.Name,
					Disturbance: probe.Stop()})
			}
			t.Close()
		}
	}
	if step != nil {
		step(total, total, fmt.Sprintf("%d configurations on %s", total, dev.Name))
	}
	return out, keepPoints(out)
}

func keepPoints(ps []Point) error {
	return results.KeepValue(strings.TrimSuffix(keepTune, ".json"), ps) // atomic: other tabs may keep at once
}

// RecallTune loads the points Tune kept.
func RecallTune() ([]Point, error) {
	return results.RecallValue[[]Point](strings.TrimSuffix(keepTune, ".json"))
}

// Best is the configuration with the most samples per second.
func Best(ps []Point) (Point, error) {
	if len(ps) == 0 {
		return Point{}, fmt.Errorf("%s: no tuned points", Lesson)
	}
	best := ps[0]
	for _, p := range ps[1:] {
		if p.SamplesPerSec > best.SamplesPerSec {
			best = p
		}
	}
	return best, nil
}

// TuneChart draws samples/s per configuration, best first.
func TuneChart(ps []Point) (*plot.Plot, error) {
	ps = append([]Point(nil), ps...)
	sort.Slice(ps, func(i, j int) bool { return ps[i].SamplesPerSec > ps[j].SamplesPerSec })
	var bars []charts.Bar
	for _, p := range ps {
		// Points come from Tune in this run, or from a Recall that refuses another run's keep.
		bars = append(bars, charts.Bar{Label: fmt.Sprintf("b%d %s w%d", p.Batch, short(p.DType), p.Workers), Value: p.SamplesPerSec, Source: charts.Live})
	}
	dev := ""
	if len(ps) > 0 {
		dev = ps[0].Device
	}
	return charts.Bars("training from the loader: samples/s per configuration, "+dev, "samples/s", bars)
}

func short(d string) string {
	return map[string]string{"float32": "f32", "bfloat16": "bf16", "float16": "f16"}[d]
}

// TuneTable lists the points, best first, with the device's busy share.
func TuneTable(ps []Point) units.Table {
	ps = append([]Point(nil), ps...)
	sort.Slice(ps, func(i, j int) bool { return ps[i].SamplesPerSec > ps[j].SamplesPerSec })
	var rows [][]string
	var disturbed []string
	for _, p := range ps {
		rows = append(rows, []string{fmt.Sprint(p.Batch), p.DType, fmt.Sprint(p.Workers), fmt.Sprintf("%.0f", p.SamplesPerSec), fmt.Sprintf("%.0f%%", 100*p.DeviceBusy)})
		disturbed = append(disturbed, p.Disturbance.Why())
	}
	return units.Table{Origins: []units.Origin{units.MeasuredHere()}, Header: []string{"batch", "dtype", "loader workers", "samples/s", "device busy"}, Rows: rows, Disturbed: disturbed}
}

// Check grades the learner's pick against the measured points: within 10% of the best samples/s
// counts as right (the sweep's own noise is of that order). A zero Config means "not answered yet".
func Check(pick Config, ps []Point) (string, error) {
	best, err := Best(ps)
	if err != nil {
		return "", err
	}
	if pick == (Config{}) {
		return fmt.Sprintf("No answer yet: fill in the batch, dtype and workers you would pick from the table. The measured best here: %s at %.0f samples/s.", best.Config, best.SamplesPerSec), nil
	}
	for _, p := range ps {
		if p.Config == pick {
			share := p.SamplesPerSec / best.SamplesPerSec
			if share >= 0.9 {
				return fmt.Sprintf("Right: %s gives %.0f samples/s, %.0f%% of the best measured (%s).", pick, p.SamplesPerSec, 100*share, best.Config), nil
			}
			var why []string
			if p.Batch < best.Batch {
				why = append(why, "a larger batch spreads the fixed cost per step")
			}
			if p.Workers < best.Workers {
				why = append(why, "more workers keep the device fed")
			}
			if p.DType != best.DType {
				why = append(why, best.DType+" was faster on this device")
			}
			return fmt.Sprintf("Not quite: %s gives %.0f samples/s, %.0f%% of the best (%s, %.0f samples/s). %s.", pick, p.SamplesPerSec, 100*share, best.Config, best.SamplesPerSec, strings.Join(why, "; ")), nil
		}
	}
	return "", fmt.Errorf("%s: %s is not in the tuned grid: pick one of the table's rows", Lesson, pick)
}
