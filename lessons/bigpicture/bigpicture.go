// Package bigpicture is the code behind notebooks/08-whole-picture.ipynb: the 6·N·T estimate of a
// training run as a calculator (the source's 350M-parameter, 100B-token example), fed with the
// source's datasheet rates (labeled as a model) and with rates measured on this machine (and
// recorded on a GPU when a recording exists); the memory of the run's optimizer state; scaling
// past one device (data parallelism, effective batch and learning rate, gradient synchronization);
// and one live case where the CPU is the right choice: batch-1 inference of a small MLP.
package bigpicture

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/charts"
	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/gpumodel"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "08-whole-picture"

// Names results are kept under between cells.
const (
	KeepRates     = Lesson + "-rates"
	KeepInference = Lesson + "-inference"
)

func init() {
	experiments.Register(experiments.Experiment{
		Lesson: Lesson, Name: "step-rate",
		Doc: "achieved FLOP/s of an Adam MLP training step (f32 on CPU; bf16 mixed precision on a GPU)",
		Run: func(dev *devices.Device, s experiments.Scale) ([]measure.Result, error) {
			r, err := StepRate(dev, s)
			if err != nil {
				return nil, err
			}
			return []measure.Result{r}, nil
		},
	})
	experiments.Register(experiments.Experiment{
		Lesson: Lesson, Name: "batch1-inference",
		Doc: "latency of one forward pass of a small MLP (≈85 k parameters) at batch 1",
		Run: func(dev *devices.Device, s experiments.Scale) ([]measure.Result, error) {
			r, err := Inference(dev)
			if err != nil {
				return nil, err
			}
			return []measure.Result{r}, nil
		},
	})
}

// TrainingRun is a training run in the terms of the 6·N·T estimate.
type TrainingRun struct {
	Params        float64 // N, parameters
	Tokens        float64 // T, training tokens in all
	TokensPerStep float64 // tokens (samples × sequence) per optimizer step
}

// SourceRun is the source's example: 350M parameters, 100B tokens, 1M tokens per step.
var SourceRun = TrainingRun{Params: 350e6, Tokens: 100e9, TokensPerStep: 1e6}

// Steps is T ÷ tokens per step.
func (r TrainingRun) Steps() float64 { return r.Tokens / r.TokensPerStep }

// ForwardFLOPsPerStep is 2·N per token: one multiply-add per parameter per token.
func (r TrainingRun) ForwardFLOPsPerStep() float64 { return 2 * r.Params * r.TokensPerStep }

// BackwardFLOPsPerStep is about 4·N per token: gradients w.r.t. activations and weights.
func (r TrainingRun) BackwardFLOPsPerStep() float64 { return 4 * r.Params * r.TokensPerStep }

// FLOPsPerStep is 6·N per token (the attention term, which grows with sequence length, aside).
func (r TrainingRun) FLOPsPerStep() float64 { return 6 * r.Params * r.TokensPerStep }

// TotalFLOPs is 6·N·T.
func (r TrainingRun) TotalFLOPs() float64 { return 6 * r.Params * r.Tokens }

// StateBytes is the training state at bytesPerParam (16 for mixed-precision Adam), activations
// not included.
func (r TrainingRun) StateBytes(bytesPerParam float64) float64 { return r.Params * bytesPerParam }

// Rate is a sustained FLOP/s a run could get, with where it comes from.
type Rate struct {
	Name   string        // what runs: "illustrative 64-core CPU socket at 50% of f32 peak"
	FLOPS  float64       // sustained FLOP/s
	Source charts.Source // Live (measured here), Recorded, or Model (datasheet × assumed utilization)
	Note   string        // details: the datasheet row, the measurement
}

// SecondsPerStep is how long one step of run takes at this rate.
func (r Rate) SecondsPerStep(run TrainingRun) float64 { return run.FLOPsPerStep() / r.FLOPS }

// Days is how long the whole run takes at this rate.
func (r Rate) Days(run TrainingRun) float64 { return run.TotalFLOPs() / r.FLOPS / 86400 }

// SourceRates are the source's two rates, computed from the course's datasheet table: the
// illustrative 64-core CPU socket at 50% of its float32 peak, and one H100 SXM at 40% model FLOPs
// utilization in bf16.
func SourceRates() []Rate {
	var out []Rate
	if s, ok := devices.SpecByModel("illustrative 64-core CPU socket"); ok {
		pk := s.Ceilings.Peak("float32")
		out = append(out, Rate{Name: fmt.Sprintf("CPU socket at 50%% of %s f32", units.SI(pk, "FLOP/s")), FLOPS: 0.5 * pk,
			Source: charts.Model, Note: "source's utilization × " + s.Ceilings.Source})
	}
	if s, ok := devices.SpecByModel("NVIDIA H100 SXM"); ok {
		pk := s.Ceilings.Peak("bfloat16")
		out = append(out, Rate{Name: fmt.Sprintf("one H100 at 40%% MFU of %s bf16", units.SI(pk, "FLOP/s")), FLOPS: 0.4 * pk,
			Source: charts.Model, Note: "source's utilization × " + s.Ceilings.Source})
	}
	return out
}

// ModelRates are the course's GPU model (gpumodel) for the same H100, at both ends of its band for
// large bf16 matrix products: a ceiling for a whole step (which also runs memory-bound operations),
// next to the source's 40% MFU.
func ModelRates() []Rate {
	m := gpumodel.Model{GPU: gpumodel.H100, A: gpumodel.Published}
	r := m.GEMMRate("bfloat16")
	note := m.RateNote("bfloat16")
	return []Rate{
		{Name: "one H100, GPU model, optimistic end (large bf16 matmuls only)", FLOPS: r.Low, Source: charts.Model, Note: note},
		{Name: "one H100, GPU model, pessimistic end (large bf16 matmuls only)", FLOPS: r.High, Source: charts.Model, Note: note},
	}
}

// StepModel is the MLP whose training step measures a device's achieved rate: float32 on CPUs,
// bfloat16 mixed precision on GPUs (what a GPU run would use), Adam, sized by scale.
func StepModel(dev *devices.Device, s experiments.Scale) workloads.MLP {
	w := experiments.Pick(s,
		workloads.MLP{Batch: 256, In: 512, Hidden: 512, Depth: 3, Out: 512, Type: dtypes.Float32, Optimizer: workloads.Adam},
		workloads.MLP{Batch: 8192, In: 4096, Hidden: 4096, Depth: 4, Out: 4096, Type: dtypes.Float32, Optimizer: workloads.Adam})
	if dev.IsGPU() {
		w.Type = dtypes.BFloat16
	}
	return w
}

// StepRate measures StepModel's training step on dev: its achieved FLOP/s is the rate a real
// training step gets there, optimizer and memory-bound operations included.
func StepRate(dev *devices.Device, s experiments.Scale) (measure.Result, error) {
	return measure.Run(dev, StepModel(dev, s), measure.Options{Warmup: 2, Reps: 5}, false)
}

// RatesHere measures this machine's rates on the default device — its measured float32 matmul
// ceiling and a real MLP training step — keeps the step results (with any recorded ones) for later
// cells, and returns all the rates: the source's (model), this machine's (live) and recorded GPUs'.
func RatesHere() ([]Rate, []measure.Result, error) {
	dev, err := devices.Default()
	if err != nil {
		return nil, nil, err
	}
	rates := append(SourceRates(), ModelRates()...)
	c, err := measure.MeasureCeilings(dev)
	if err != nil {
		return rates, nil, err
	}
	prec := "float32"
	if dev.IsGPU() {
		prec = "bfloat16"
	}
	if f := c.FLOPS[prec]; f > 0 {
		rates = append(rates, Rate{Name: fmt.Sprintf("%s: large %s matmul (its best case)", dev.Name, prec), FLOPS: f, Source: charts.Live,
			Note: "measured matmul ceiling, " + dev.Model})
	}
	r, err := StepRate(dev, experiments.CurrentScale())
	if err != nil {
		return rates, nil, err
	}
	results, err := experiments.WithRecorded([]measure.Result{r}, Lesson, "step-rate")
	if err != nil {
		return rates, results, err
	}
	for _, x := range results {
		src, note := charts.Live, x.Label
		if x.Provenance.Recorded {
			src, note = charts.Recorded, x.Provenance.Model+", "+x.Provenance.Date.Format("2006-01-02")
		}
		rates = append(rates, Rate{Name: fmt.Sprintf("%s: a real Adam MLP training step (%s)", x.Provenance.Device, x.DType), FLOPS: x.FLOPS(), Source: src, Note: note})
	}
	return rates, results, measure.Keep(KeepRates, results)
}

// EstimateTable formats run at each rate: FLOP/s, seconds per step, days, and how many times
// slower than the first GPU model rate.
func EstimateTable(run TrainingRun, rates []Rate) units.Table {
	ref := 0.0
	for _, r := range rates {
		if r.Source == charts.Model && ref == 0 && r.FLOPS > 1e14 {
			ref = r.FLOPS
		}
	}
	var rows [][]string
	for _, r := range rates {
		slower := "—"
		if ref > 0 {
			slower = fmt.Sprintf("%.3g×", ref/r.FLOPS)
		}
		src := r.Source.Describe("")
		if r.Source == charts.Model {
			src = r.Source.Describe(r.Note)
		}
		rows = append(rows, []string{r.Name, src, units.SI(r.FLOPS, "FLOP/s"),
			units.Duration(r.SecondsPerStep(run)), formatDays(r.Days(run)), slower})
	}
	return units.Table{Header: []string{"rate", "where the rate comes from", "sustained", "per step", "whole run", "vs the source's H100 rate"}, Rows: rows}
}

func formatDays(d float64) string {
	switch {
	case d >= 365*3:
		return fmt.Sprintf("%.3g days (%.0f years)", d, d/365)
	case d >= 1:
		return fmt.Sprintf("%.3g days", d)
	default:
		return fmt.Sprintf("%.3g hours", 24*d)
	}
}

// RunTable formats the run's arithmetic: steps, forward, backward and total FLOPs per step, total.
func RunTable(run TrainingRun) units.Table {
	e := func(v float64) string { return strconv.FormatFloat(v, 'e', 2, 64) }
	return units.Table{Header: []string{"quantity", "formula", "value"}, Rows: [][]string{
		{"steps", "T ÷ tokens per step", units.Plain(run.Steps())},
		{"forward FLOPs per step", "2·N·tokens", e(run.ForwardFLOPsPerStep())},
		{"backward FLOPs per step", "4·N·tokens", e(run.BackwardFLOPsPerStep())},
		{"FLOPs per step", "6·N·tokens", e(run.FLOPsPerStep())},
		{"FLOPs for the run", "6·N·T", e(run.TotalFLOPs())},
		{"mixed-precision Adam state", "16 bytes × N", units.BytesFixed(run.StateBytes(16)) + fmt.Sprintf(" (%.1f GB)", run.StateBytes(16)/1e9)},
	}}
}

// MFU is a measured step's model FLOPs utilization against its device's datasheet (or CPU model)
// peak for its precision, and against the device's measured matmul ceiling when known.
func MFU(r measure.Result) (ofPeak, ofCeiling float64) {
	return r.PercentOfPeak(), func() float64 {
		if r.CeilingFLOPS > 0 {
			return 100 * r.FLOPS() / r.CeilingFLOPS
		}
		return 0
	}()
}

// ---- scaling past one device ----

// DataParallel is the effective batch of k devices of perDevice samples each, and the learning rate
// scaled linearly from one that worked at baseBatch (a common starting rule, to be checked).
func DataParallel(perDevice, k int, baseLR float64, baseBatch int) (effective int, lr float64) {
	effective = perDevice * k
	return effective, baseLR * float64(effective) / float64(baseBatch)
}

// AllReduceSeconds is the time a ring all-reduce of gradBytes takes over k devices with linkBytes
// per second per device: each device sends and receives 2·(k−1)/k of the gradient.
func AllReduceSeconds(gradBytes float64, k int, linkBytes float64) float64 {
	if k <= 1 {
		return 0
	}
	return 2 * float64(k-1) / float64(k) * gradBytes / linkBytes
}

// Link is an interconnect assumption for the scaling table.
type Link struct {
	Name  string
	Bytes float64 // per device, per direction, bytes/s
	Note  string
}

// Links are the two interconnects the scaling table compares: assumptions, labeled.
var Links = []Link{
	{"100 Gb/s Ethernet between CPU servers", 12.5e9, "assumed: 100 Gb/s = 12.5 GB/s"},
	{"NVLink between H100s in one node", 450e9, "datasheet: H100 SXM NVLink 900 GB/s total, 450 GB/s each way"},
}

// ScalingTable models data parallelism of run over k devices at rate each, exchanging float32
// gradients (4 bytes per parameter) over link every step without overlap: compute time, sync time
// and the share of the step spent computing. A model, not a measurement.
func ScalingTable(run TrainingRun, rate Rate, link Link, ks []int) units.Table {
	grad := 4 * run.Params
	var rows [][]string
	for _, k := range ks {
		comp := run.FLOPsPerStep() / (float64(k) * rate.FLOPS)
		sync := AllReduceSeconds(grad, k, link.Bytes)
		rows = append(rows, []string{strconv.Itoa(k), units.Duration(comp), units.Duration(sync),
			fmt.Sprintf("%.0f%%", 100*comp/(comp+sync)), formatDays(run.Steps() * (comp + sync) / 86400)})
	}
	return units.Table{Header: []string{fmt.Sprintf("%s (%s)", rate.Name, link.Name), "compute per step", fmt.Sprintf("gradient sync (%s of f32 gradients)", units.BytesFixed(grad)),
		"time computing", "whole run"}, Rows: rows}
}

// ---- batch-1 inference ----

// Forward is the forward pass of a small MLP at a batch size: the work of serving one request
// (batch 1). It implements workloads.Workload so measure.Run can time it.
type Forward struct {
	Batch, In, Hidden, Out, Depth int
}

// SmallMLP is the model served: 64 → 256 × 2 → 10, about 85 k parameters, batch 1.
var SmallMLP = Forward{Batch: 1, In: 64, Hidden: 256, Out: 10, Depth: 2}

func (f Forward) dims() []int {
	d := []int{f.In}
	for i := 0; i < f.Depth; i++ {
		d = append(d, f.Hidden)
	}
	return append(d, f.Out)
}

// NumParams is Σ dᵢ·dᵢ₊₁ + dᵢ₊₁.
func (f Forward) NumParams() int {
	d, n := f.dims(), 0
	for i := 0; i+1 < len(d); i++ {
		n += d[i]*d[i+1] + d[i+1]
	}
	return n
}

// Name returns "mlp-forward".
func (f Forward) Name() string { return "mlp-forward" }

// String describes it.
func (f Forward) String() string {
	return fmt.Sprintf("mlp forward %d×(%d→%d×%d→%d) float32, %d parameters", f.Batch, f.In, f.Hidden, f.Depth, f.Out, f.NumParams())
}

// DType is float32.
func (f Forward) DType() dtypes.DType { return dtypes.Float32 }

// Params returns the shapes.
func (f Forward) Params() map[string]int {
	return map[string]int{"batch": f.Batch, "in": f.In, "hidden": f.Hidden, "out": f.Out, "depth": f.Depth, "parameters": f.NumParams()}
}

// FLOPs is 2·Batch·Σ dᵢ·dᵢ₊₁.
func (f Forward) FLOPs() float64 {
	d, s := f.dims(), 0.0
	for i := 0; i+1 < len(d); i++ {
		s += float64(d[i] * d[i+1])
	}
	return 2 * float64(f.Batch) * s
}

// Bytes is the parameters and the input read, the output written, in float32.
func (f Forward) Bytes() float64 { return 4 * float64(f.NumParams()+f.Batch*(f.In+f.Out)) }

// Prepare uploads random parameters and input to dev and builds the forward graph.
func (f Forward) Prepare(dev *devices.Device) (inst workloads.Instance, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("bigpicture: building %s on %s: %v", f, dev.Name, r)
		}
	}()
	d := f.dims()
	fi := &forwardInstance{f: f}
	fi.host = append(fi.host, rnd(f.Batch*f.In, 1, 1))
	for i := 0; i+1 < len(d); i++ {
		fi.host = append(fi.host, rnd(d[i]*d[i+1], uint64(10+2*i), math.Sqrt(3/float64(d[i]))), rnd(d[i+1], uint64(11+2*i), 0.1))
	}
	for i, h := range fi.host {
		var t *tensors.Tensor
		if i == 0 {
			t = tensors.FromFlatDataAndDimensions(h, f.Batch, f.In)
		} else if i%2 == 1 {
			l := (i - 1) / 2
			t = tensors.FromFlatDataAndDimensions(h, d[l], d[l+1])
		} else {
			t = tensors.FromFlatDataAndDimensions(h, 1, d[(i-2)/2+1])
		}
		if err := t.MaterializeOnDevice(dev.Backend(), false, 0); err != nil {
			fi.Close()
			return nil, fmt.Errorf("bigpicture: uploading to %s: %w", dev.Name, err)
		}
		fi.args = append(fi.args, t)
	}
	fi.exec, err = graph.NewExec(dev.Backend(), func(in []*graph.Node) *graph.Node {
		h := in[0]
		for l := 0; l+1 < len(d); l++ {
			h = graph.Add(graph.MatMul(h, in[1+2*l]), in[2+2*l])
			if l+2 < len(d) {
				h = graph.Tanh(h)
			}
		}
		return h
	})
	if err != nil {
		fi.Close()
		return nil, err
	}
	return fi, nil
}

// Validate reports invalid shapes.
func (f Forward) Validate() error {
	if f.Batch <= 0 || f.In <= 0 || f.Out <= 0 || f.Depth < 0 || (f.Depth > 0 && f.Hidden <= 0) {
		return fmt.Errorf("bigpicture: invalid forward shapes %+v", f)
	}
	return nil
}

func rnd(n int, seed uint64, scale float64) []float32 {
	v := make([]float32, n)
	s := seed*0x9e3779b97f4a7c15 + 1
	for i := range v {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		v[i] = float32((float64(s>>11)/(1<<53)*2 - 1) * scale)
	}
	return v
}

type forwardInstance struct {
	f    Forward
	host [][]float32
	args []any
	exec *graph.Exec
}

func (fi *forwardInstance) Compile() (time.Duration, error) {
	t0 := time.Now()
	err := workloads.Precompile(fi.exec, fi.args...)
	return time.Since(t0), err
}

func (fi *forwardInstance) Run() error {
	outs, err := fi.exec.Exec(fi.args...)
	for _, o := range outs {
		_ = o.FinalizeAll()
	}
	return err
}

// Check compares the output with a float64 forward pass on the host.
func (fi *forwardInstance) Check() (float64, error) {
	outs, err := fi.exec.Exec(fi.args...)
	if err != nil {
		return 0, err
	}
	defer func() {
		for _, o := range outs {
			_ = o.FinalizeAll()
		}
	}()
	got := tensors.MustCopyFlatData[float32](outs[0])
	d := fi.f.dims()
	h := make([]float64, 0)
	for _, v := range fi.host[0] {
		h = append(h, float64(v))
	}
	B := fi.f.Batch
	for l := 0; l+1 < len(d); l++ {
		W, b := fi.host[1+2*l], fi.host[2+2*l]
		next := make([]float64, B*d[l+1])
		for r := 0; r < B; r++ {
			for j := 0; j < d[l+1]; j++ {
				s := float64(b[j])
				for k := 0; k < d[l]; k++ {
					s += h[r*d[l]+k] * float64(W[k*d[l+1]+j])
				}
				if l+2 < len(d) {
					s = math.Tanh(s)
				}
				next[r*d[l+1]+j] = s
			}
		}
		h = next
	}
	var num, den float64
	for i := range h {
		num += (float64(got[i]) - h[i]) * (float64(got[i]) - h[i])
		den += h[i] * h[i]
	}
	return math.Sqrt(num / den), nil
}

func (fi *forwardInstance) Close() {
	for _, a := range fi.args {
		if t, ok := a.(*tensors.Tensor); ok {
			_ = t.FinalizeAll()
		}
	}
	if fi.exec != nil {
		fi.exec.Finalize()
	}
}

// Inference times one batch-1 forward pass of SmallMLP on dev (checked against float64 first).
// Each timed sample covers several passes (they are microseconds each), so the median is stable.
func Inference(dev *devices.Device) (measure.Result, error) {
	r, err := measure.Run(dev, SmallMLP, measure.Options{Warmup: 20, Reps: 7, SampleTime: 20 * time.Millisecond}, true)
	if err != nil {
		return r, err
	}
	if r.RelErr > 1e-4 {
		return r, fmt.Errorf("bigpicture: %s gave a wrong forward pass (relative error %.2g)", dev.Name, r.RelErr)
	}
	return r, nil
}

// InferenceHere runs Inference on every XLA device here, adds recorded results for devices this
// machine lacks, and keeps them.
func InferenceHere() ([]measure.Result, error) {
	return experiments.OnEachDevice(Lesson, "batch1-inference", KeepInference, func(d *devices.Device) ([]measure.Result, error) {
		r, err := Inference(d)
		if err != nil {
			return nil, err
		}
		return []measure.Result{r}, nil
	})
}

// InferenceChart draws the batch-1 latency per device (live and recorded), in microseconds.
func InferenceChart(rs []measure.Result) (*plot.Plot, error) {
	var bars []charts.Bar
	for _, r := range rs {
		bars = append(bars, charts.Bar{Label: r.Provenance.Label(), Value: r.Seconds() * 1e6})
	}
	title := "batch-1 inference latency"
	if len(rs) > 0 {
		title = fmt.Sprintf("One request: %s", rs[0].Label)
	}
	return charts.Bars(title, "time per request [µs] (median)", bars)
}
