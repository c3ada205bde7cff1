// Package precision is the code behind notebooks/05-precision.ipynb: matmul throughput per
// precision on every device, why 16-bit is no faster on a CPU without a 16-bit matrix path (the
// notebook prints which this CPU is) while a GPU's tensor cores make it several times faster, float16 underflow shown on real gradients of a small MLP, loss scaling
// fixing it, bfloat16 needing no scaler, and mixed precision's float32 master weights.
package precision

import (
	"fmt"

	"time"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "05-precision"

// Names results are kept under between cells.
const (
	KeepDTypes = Lesson + "-dtypes"
	KeepMixed  = Lesson + "-mixed"
)

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = experiments.List{
	{
		Lesson: Lesson, Name: "matmul-dtypes",
		Doc: "n×n matmul in float64, float32 (and TF32 on CUDA), bfloat16, float16",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return MatMulDTypes(dev, DefaultDTypes(s).N)
		},
	},
	{
		Lesson: Lesson, Name: "mixed-precision",
		Doc: "the same MLP trained in float32, bfloat16 and float16 (f32 master weights): step time, memory, final loss",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			t := DefaultTraining(s)
			return Mixed(dev, t.MLP(), t.Steps)
		},
	},
}

// DTypes are the element types of the sweep, widest first.
var DTypes = []dtypes.DType{dtypes.Float64, dtypes.Float32, dtypes.BFloat16, dtypes.Float16}

// MatMulDTypes times an n×n matmul in every dtype on dev, each checked against float64 first.
// On xla:cuda float32 runs twice: on a CUDA device opened with TF32 off (true float32) and on dev,
// whose float32 matmuls run in TF32 on the tensor cores (go-xla's default); Result.Precision says
// which. A dtype the device cannot run is skipped.
func MatMulDTypes(dev *devices.Device, n int) ([]results.Result, error) {
	return matMulTypes(dev, n, DTypes)
}

// matMulTypes is MatMulDTypes in the given types.
func matMulTypes(dev *devices.Device, n int, types []dtypes.DType) ([]results.Result, error) {
	var out []results.Result
	for _, dt := range types {
		d := dev
		if dt == dtypes.Float32 && dev.TF32 {
			if strict, err := devices.Open(devices.CUDANoTF32); err == nil {
				r, err := timeMatMul(strict, n, dt)
				if err != nil {
					return out, err
				}
				out = append(out, r)
			}
		}
		if ok, _ := workloads.Supports(d, dt); !ok {
			continue
		}
		r, err := timeMatMul(d, n, dt)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

func timeMatMul(dev *devices.Device, n int, dt dtypes.DType) (results.Result, error) {
	w := workloads.Square(n, dt)
	r, err := measure.Run(dev, w, measure.Options{Warmup: 2, Reps: 5, SampleTime: 3 * time.Millisecond}, true)
	if err != nil {
		return r, err
	}
	if tol := workloads.ToleranceOf(dev, w); r.RelErr > tol {
		return r, fmt.Errorf("%s: %s on %s is wrong (relative error %.2g > %.2g)", Lesson, w, dev.Name, r.RelErr, tol)
	}
	return r, nil
}

// DTypesOnEachDevice runs MatMulDTypes at the cell's side and types on every XLA device here (a
// type a device cannot run is skipped), adds recorded results of devices this machine lacks (at the
// side they were recorded at: 8192 on a GPU), and keeps them. A matmul Validate refuses is refused
// before anything is allocated.
func DTypesOnEachDevice(m MatMuls) ([]results.Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "matmul-dtypes", KeepDTypes, func(d *devices.Device) ([]results.Result, error) {
		return matMulTypes(d, m.N, m.types())
	})
}

// SoftwareContrast times the source's numpy example — by default (DefaultSoftware) a 128×128 matmul
// in float64, float32 and float16, at the side and types the cell writes — on GoMLX's pure-Go
// backend, which like numpy has no 16-bit hardware path and does float16 in software. A matmul
// ValidateSoftware refuses is refused before anything is allocated.
func SoftwareContrast(m MatMuls) ([]results.Result, error) {
	if err := m.ValidateSoftware(); err != nil {
		return nil, err
	}
	d, err := devices.Open(devices.Go)
	if err != nil {
		return nil, err
	}
	var out []results.Result
	for _, dt := range m.types() {
		if ok, why := workloads.Supports(d, dt); !ok {
			return out, fmt.Errorf("%s: %s cannot run %s: %s", Lesson, d.Name, dt, why)
		}
		r, err := timeMatMul(d, m.N, dt)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// DTypeTable shows each result's time and GFLOP/s, and its time relative to float32 on the same
// device.
func DTypeTable(rs []results.Result) units.Table {
	f32 := map[string]time.Duration{}
	for _, r := range rs {
		if r.Precision == "float32" {
			f32[r.Provenance.Device+r.Provenance.Model] = r.Stats.Median
		}
	}
	var rows [][]string
	var disturbed []string
	for _, r := range rs {
		rel := "—"
		if b := f32[r.Provenance.Device+r.Provenance.Model]; b > 0 {
			rel = fmt.Sprintf("%.2f×", float64(r.Stats.Median)/float64(b))
		}
		disturbed = append(disturbed, results.WhyDisturbed(r))
		rows = append(rows, []string{r.Provenance.Label(), r.Label, r.Precision, units.SI(r.Seconds(), "s"),
			fmt.Sprintf("±%.0f%%", 100*r.Stats.CV), fmt.Sprintf("%.1f", r.GFLOPS()), rel})
	}
	return units.Table{Origins: results.Origins(rs), Header: []string{"device", "matmul", "precision", "median", "CV", "GFLOP/s", "time vs float32"}, Rows: rows, Disturbed: disturbed}
}

// DTypeChart draws achieved GFLOP/s per device and precision.
func DTypeChart(rs []results.Result) (*plot.Plot, error) {
	var bars []charts.Bar
	title := "matmul throughput by precision"
	for _, r := range rs {
		label := r.Provenance.Device + " " + short(r.Precision)
		if r.Provenance.Recorded {
			label += " (rec.)"
			title = "matmul throughput by precision (rec. = recorded)"
		}
		bars = append(bars, fromresult.Bar(r, label, r.GFLOPS()))
	}
	return charts.Bars(title, "GFLOP/s", bars)
}

func short(p string) string {
	switch p {
	case "float64":
		return "f64"
	case "float32":
		return "f32"
	case "bfloat16":
		return "bf16"
	case "float16":
		return "f16"
	}
	return p
}

// GPUPeakTable is the H100/H200 datasheet matmul peaks per precision (a model, not a measurement: the two
// are the same GH100 chip, so one row each), with each one's ratio to plain float32: what tensor
// cores buy. TF32 and FP8 are tensor-core formats: no CPU multiplies them.
func GPUPeakTable() units.Table {
	g := datasheet.H100
	var rows [][]string
	for _, p := range []string{"float64", "float32", workloads.TF32, "bfloat16", "float16", "fp8"} {
		peak := g.Peak(p)
		rows = append(rows, []string{p, units.SI(peak, "FLOP/s"), fmt.Sprintf("%.1f×", peak/g.Peak("float32"))})
	}
	return units.Table{Origins: []units.Origin{units.Model("NVIDIA H100 and H200 SXM datasheets, dense figures (the sparse headline figures are twice these)")},
		Header: []string{"precision (H100 = H200), matmul", "peak", "vs plain float32"}, Rows: rows,
		Notes: []string{fmt.Sprintf("float64: a matmul (DGEMM) runs on the FP64 tensor cores; other float64 work gets the CUDA cores' %s.", units.SI(g.FP64Vector, "FLOP/s"))}}
}

// CPUFlags says what this CPU reports about 16-bit arithmetic.
func CPUFlags() string {
	f := devices.ReadCPUFacts()
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	return fmt.Sprintf("%s: native bf16 dot products (avx512_bf16/amx_bf16) %s, native f16 arithmetic (avx512_fp16) %s",
		f.ModelName, yes(f.BF16), yes(f.F16))
}

// ---- mixed precision ----

// MixedModel is the MLP of the mixed-precision experiment at scale s (DefaultTraining's).
func MixedModel(s experiments.Scale) workloads.MLP { return DefaultTraining(s).MLP() }

// Mixed trains w (same seed, so the same initial weights and batch) for steps SGD steps in float32,
// bfloat16 and float16 on dev. For the 16-bit runs workloads.MLP keeps float32 master parameters,
// gradients and updates, and runs the matmuls and activations in 16 bits. Each result carries the
// step time, and in Params the final loss ×1e6 ("loss_e6") and the memory the shapes imply
// (Memory(): "param_bytes", "activation_bytes", "total_bytes").
func Mixed(dev *devices.Device, w workloads.MLP, steps int) ([]results.Result, error) {
	var out []results.Result
	for _, dt := range []dtypes.DType{dtypes.Float32, dtypes.BFloat16, dtypes.Float16} {
		m := w
		m.Type = dt
		if ok, _ := workloads.Supports(dev, dt); !ok {
			continue
		}
		tr, err := m.NewTrainer(dev)
		if err != nil {
			return out, err
		}
		if _, err := tr.Compile(); err != nil {
			tr.Close()
			return out, err
		}
		first := 0.0
		var samples []time.Duration
		probe := measure.StartProbe()
		for i := 0; i < steps; i++ {
			t0 := time.Now()
			if err := tr.Step(); err != nil {
				tr.Close()
				return out, err
			}
			samples = append(samples, time.Since(t0))
			if i == 0 {
				if first, err = tr.Loss(); err != nil {
					tr.Close()
					return out, err
				}
			}
		}
		loss, err := tr.Loss()
		tr.Close()
		if err != nil {
			return out, err
		}
		mem := m.Memory()
		out = append(out, results.Result{
			Workload: m.Name(), Label: m.String(), DType: dt.String(), Precision: dt.String(),
			Params: map[string]int{"steps": steps},
			Metrics: map[string]float64{MetricLoss: loss, MetricFirstLoss: first,
				MetricParamBytes: float64(mem.Parameters), MetricActivationBytes: float64(mem.Activations), MetricTotalBytes: float64(mem.Total())},
			FLOPs: m.FLOPs(), Bytes: m.Bytes(), Stats: probe.Summarize(samples[1:]), RelErr: -1,
			Provenance: results.ProvenanceOf(dev),
		})
	}
	return out, nil
}

// MixedOnEachDevice runs Mixed with the cell's model and steps on every XLA device here and adds
// recorded results (at the model they were recorded with). A run Validate refuses is refused before
// anything is allocated.
func MixedOnEachDevice(t Training) ([]results.Result, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "mixed-precision", KeepMixed, func(d *devices.Device) ([]results.Result, error) {
		return Mixed(d, t.MLP(), t.Steps)
	})
}

// MixedTable shows, per device and compute type: step time, the loss after training (and its
// difference from float32's), and the memory the shapes imply.
func MixedTable(rs []results.Result) units.Table {
	f32 := map[string]float64{}
	for _, r := range rs {
		if r.DType == dtypes.Float32.String() {
			f32[r.Provenance.Label()] = LossOf(r, MetricLoss)
		}
	}
	var rows [][]string
	var disturbed []string
	for _, r := range rs {
		loss := LossOf(r, MetricLoss)
		diff := "—"
		if b, ok := f32[r.Provenance.Label()]; ok && r.DType != dtypes.Float32.String() && b > 0 {
			diff = fmt.Sprintf("%+.2f%%", 100*(loss/b-1))
		}
		disturbed = append(disturbed, results.WhyDisturbed(r))
		rows = append(rows, []string{r.Provenance.Label(), r.DType, units.SI(r.Seconds(), "s"),
			fmt.Sprintf("%.4f → %.4f", LossOf(r, MetricFirstLoss), loss), diff,
			units.BytesFixed(metric(r, MetricParamBytes)), units.BytesFixed(metric(r, MetricActivationBytes)),
			units.BytesFixed(metric(r, MetricTotalBytes))})
	}
	return units.Table{Origins: results.Origins(rs), Header: []string{"device", "compute type", "median step", fmt.Sprintf("loss: first → after %d steps", firstSteps(rs)), "vs float32",
		"parameters (f32 master)", "activations", "total (formula)"}, Rows: rows, Disturbed: disturbed}
}

// Names of the mixed-precision results' values (Metrics): the loss after the first step and after
// the last, and the bytes the shapes imply (formula).
const (
	MetricLoss            = "loss"
	MetricFirstLoss       = "first_loss"
	MetricParamBytes      = "param_bytes"
	MetricActivationBytes = "activation_bytes"
	MetricTotalBytes      = "total_bytes"
)

// LossOf is a mixed-precision result's loss called name (MetricLoss, MetricFirstLoss). Results saved
// before Metrics existed kept it among the Params, in millionths, as name+"_e6".
func LossOf(r results.Result, name string) float64 {
	if v, ok := r.Metric(name); ok {
		return v
	}
	return metric(r, name+"_e6") / 1e6
}

// metric is r's value called name (results.Result.Metric), 0 when absent.
func metric(r results.Result, name string) float64 {
	v, _ := r.Metric(name)
	return v
}

func firstSteps(rs []results.Result) int {
	if len(rs) == 0 {
		return 0
	}
	return rs[0].Params["steps"]
}
