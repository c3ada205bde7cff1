package race

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/charts"
	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The datasheet model of a GPU step, used for the GPU lane until a recording exists. Its assumptions:
//
//   - The GPU is the datasheet's NVIDIA H200 SXM (ModelGPU): the device the course records on.
//   - Float32 matrix products run on the tensor cores in TF32, xla:cuda's default, at the datasheet's
//     dense TF32 peak; memory moves at the datasheet's HBM bandwidth. The FLOPs and bytes of a step
//     are the workload's own formulas (workloads.MLP.FLOPs and Bytes).
//   - Each kernel costs LaunchCost to start (the source text's "a few microseconds" per launch),
//     and a step is KernelsPerStep kernels, one after another.
//   - time = max(FLOPs / peak, bytes / bandwidth) + kernels × LaunchCost.
//
// It is a best case: real kernels at these sizes reach a fraction of peak, and the model ignores
// the batch's trip over PCIe (the race keeps the batch on the device, as a training loop with
// prefetching does). It is a model, never a measurement: every lane and series built from it says so.

// ModelGPU is the datasheet row the model uses.
const ModelGPU = "NVIDIA H200 SXM"

// ModelPrecision is the arithmetic the model assumes for float32 matrix products: TF32.
const ModelPrecision = workloads.TF32

// LaunchCost is the assumed cost of starting one kernel.
const LaunchCost = 4 * time.Microsecond

// KernelsPerStep is the assumed number of kernels in one training step of w, as XLA fuses it: per
// layer a forward matrix product, a fused bias + activation, a weight-gradient product, an
// input-gradient product (not for the first layer: nobody needs the gradient of the data), a
// bias-gradient reduction and a fused SGD update; plus one for the loss. 6 × layers.
func KernelsPerStep(w workloads.MLP) int {
	layers := w.Depth + 1
	return 6*layers - 1 + 1
}

// Estimate is the model's time for some work on a datasheet GPU, with its parts.
type Estimate struct {
	GPU       string        // datasheet model, e.g. "NVIDIA H200 SXM"
	Precision string        // the peak used: "tf32"
	FLOPs     float64       // from the workload's formula
	Bytes     float64       // minimum bytes moved, from the workload's formula
	Kernels   int           // kernels launched
	Compute   float64       // FLOPs / peak, in seconds
	Memory    float64       // bytes / bandwidth, in seconds
	Launch    float64       // kernels × LaunchCost, in seconds
	Total     time.Duration // max(Compute, Memory) + Launch
}

// Seconds is Total in seconds.
func (e Estimate) Seconds() float64 { return max(e.Compute, e.Memory) + e.Launch }

// Bound says what limits the estimate: "launch-bound", "compute-bound" or "memory-bound".
func (e Estimate) Bound() string {
	switch {
	case e.Launch >= max(e.Compute, e.Memory):
		return "launch-bound"
	case e.Compute >= e.Memory:
		return "compute-bound"
	}
	return "memory-bound"
}

// Note is the model's label for a chart or lane (after "datasheet model"): what it adds up, and
// that it is not a measurement.
func (e Estimate) Note() string {
	launches := fmt.Sprintf("%d × %s launches", e.Kernels, charts.Duration(LaunchCost.Seconds()))
	if e.Kernels == 1 {
		launches = "one " + charts.Duration(LaunchCost.Seconds()) + " launch"
	}
	return "roofline + " + launches + ", not a measurement"
}

// short drops the vendor: "NVIDIA H200 SXM" → "H200 SXM".
func short(model string) string {
	if len(model) > 7 && model[:7] == "NVIDIA " {
		return model[7:]
	}
	return model
}

// ModelSpec returns the datasheet row of ModelGPU.
func ModelSpec() devices.Spec {
	s, ok := devices.SpecByModel(ModelGPU)
	if !ok {
		panic("race: no datasheet row " + ModelGPU)
	}
	return s
}

// EstimateWork is the model for work of flops FLOPs and bytes bytes run as kernels kernels on the
// datasheet GPU spec.
func EstimateWork(spec devices.Spec, flops, bytes float64, kernels int) Estimate {
	e := Estimate{GPU: spec.Model, Precision: ModelPrecision, FLOPs: flops, Bytes: bytes, Kernels: kernels}
	if peak := spec.Ceilings.Peak(ModelPrecision); peak > 0 {
		e.Compute = flops / peak
	}
	if bw := spec.Ceilings.BandwidthBytes; bw > 0 {
		e.Memory = bytes / bw
	}
	e.Launch = float64(kernels) * LaunchCost.Seconds()
	e.Total = seconds(e.Seconds())
	return e
}

// EstimateStep is the model of one training step of w on ModelGPU.
func EstimateStep(w workloads.MLP) Estimate {
	return EstimateWork(ModelSpec(), w.FLOPs(), w.Bytes(), KernelsPerStep(w))
}

func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s * 1e9))
}

// ModelName is the name of the model's lanes and series: "H200 (model)" (short, for legends).
var ModelName = strings.TrimSuffix(short(ModelGPU), " SXM") + " (model)"

// ModelLane is the GPU lane of the race from the model.
func ModelLane(w workloads.MLP) charts.Lane {
	e := EstimateStep(w)
	return charts.Lane{Device: ModelName, Time: e.Total, Source: charts.Model, Note: e.Note()}
}

// ModelSeries is the model's time per step at each size, as a chart series; x reads a size's
// coordinate (its batch, or its hidden width) and y turns a step's time in seconds and its size into
// the chart's value.
func ModelSeries(sizes []Size, x func(Size) float64, y func(sec float64, s Size) float64) charts.Series {
	s := charts.Series{Name: ModelName, Source: charts.Model}
	for _, sz := range sizes {
		e := EstimateStep(Step(sz.Batch, sz.Hidden))
		s.Note = e.Note()
		s.Points = append(s.Points, charts.XY{X: x(sz), Y: y(e.Seconds(), sz)})
	}
	return s
}

// ModelTable explains the model at one size: its assumptions and its parts.
func ModelTable(batch, hidden int) Table {
	w := Step(batch, hidden)
	e := EstimateStep(w)
	spec := ModelSpec()
	t := Table{Header: []string{"part of the model", "value", "where it comes from"}}
	add := func(a, b, c string) { t.Rows = append(t.Rows, []string{a, b, c}) }
	add("work", w.String(), "the race's step")
	add("FLOPs per step", fmt.Sprintf("%.3g", e.FLOPs), "formula: 3 × 2·B·Σ dᵢ·dᵢ₊₁ (workloads.MLP.FLOPs)")
	add("bytes per step (at least)", charts.Bytes(e.Bytes), "formula: parameters read and written, activations written and read back (workloads.MLP.Bytes)")
	add("TF32 peak", charts.SI(spec.Ceilings.Peak(ModelPrecision), "FLOP/s"), spec.Ceilings.Source)
	add("memory bandwidth", charts.SI(spec.Ceilings.BandwidthBytes, "B/s"), spec.Ceilings.Source)
	add("compute time = FLOPs / peak", charts.Duration(e.Compute), "model")
	add("memory time = bytes / bandwidth", charts.Duration(e.Memory), "model")
	add("kernels per step", fmt.Sprint(e.Kernels), "assumption: 6 per layer as XLA fuses a step (race.KernelsPerStep)")
	add("launch cost per kernel", charts.Duration(LaunchCost.Seconds()), "assumption: the source text's \"a few microseconds\" per launch")
	add("step = max(compute, memory) + launches", charts.Duration(e.Seconds()), "datasheet model, not a measurement: "+e.Bound())
	t.Notes = []string{fmt.Sprintf("At batch %d × hidden %d the model is %s: the arithmetic takes %s, starting the %d kernels %s.",
		batch, hidden, e.Bound(), charts.Duration(max(e.Compute, e.Memory)), e.Kernels, charts.Duration(e.Launch))}
	return t
}
