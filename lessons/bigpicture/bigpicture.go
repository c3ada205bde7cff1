// Package bigpicture is the code behind notebooks/08-whole-picture.ipynb: the 6·N·T estimate of a
// training run as a calculator (the source's 350M-parameter, 100B-token example), fed with the
// source's datasheet rates (labeled as a model) and with rates measured on this machine (and
// recorded on a GPU when a recording exists); the memory of the run's optimizer state; the run on
// many CPU sockets or GPUs (a model of the gradient exchange, which lesson 10 teaches); and one
// live case where the CPU is the right choice: batch-1 inference of a small MLP.
package bigpicture

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "08-whole-picture"

// Names results are kept under between cells.
const (
	KeepRates     = Lesson + "-rates"
	KeepInference = Lesson + "-inference"
)

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = experiments.List{
	{
		Lesson: Lesson, Name: "step-rate",
		Doc: "achieved FLOP/s of an Adam MLP training step (f32 on CPU; bf16 mixed precision on a GPU)",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			r, err := StepRate(dev, s)
			if err != nil {
				return nil, err
			}
			return []results.Result{r}, nil
		},
	},
	{
		Lesson: Lesson, Name: "batch1-inference",
		Doc: "latency of one forward pass of a small MLP (≈85 k parameters) at batch 1",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			r, err := Inference(dev)
			if err != nil {
				return nil, err
			}
			return []results.Result{r}, nil
		},
	},
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
	// Disturbed says what disturbed a measured rate (results.WhyDisturbed), "" if quiet or not measured.
	Disturbed string
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
	cpu := datasheet.ServerCPU.Ceilings
	pk := cpu.Peak("float32")
	out = append(out, Rate{Name: fmt.Sprintf("CPU socket at 50%% of %s f32", units.SI(pk, "FLOP/s")), FLOPS: 0.5 * pk,
		Source: charts.Model, Note: "source's utilization × " + cpu.Source})
	gpu := datasheet.H100.Ceilings
	pk = gpu.Peak("bfloat16")
	out = append(out, Rate{Name: fmt.Sprintf("one H100 at 40%% MFU of %s bf16", units.SI(pk, "FLOP/s")), FLOPS: 0.4 * pk,
		Source: charts.Model, Note: "source's utilization × " + gpu.Source})
	return out
}

// ModelRates are the course's GPU model (gpumodel) for the same H100, at both ends of its band for
// large bf16 matrix products: a ceiling for a whole step (which also runs memory-bound operations),
// next to the source's 40% MFU.
func ModelRates() []Rate {
	m := gpumodel.Model{GPU: datasheet.H100, A: gpumodel.Published}
	r := m.GEMMRate("bfloat16")
	note := m.RateNote("bfloat16")
	return []Rate{
		{Name: "one H100, GPU model, optimistic end (large bf16 matmuls only)", FLOPS: r.Low, Source: charts.Model, Note: note},
		{Name: "one H100, GPU model, pessimistic end (large bf16 matmuls only)", FLOPS: r.High, Source: charts.Model, Note: note},
	}
}

// StepSizes is the training step that measures a device's achieved rate, as the learner writes it
// in a cell: a Width-wide MLP (Width inputs, Depth hidden layers of Width, Width outputs) trained
// with Adam on batches of Batch, float32 on CPUs and bfloat16 mixed precision on GPUs.
type StepSizes struct {
	Batch int // samples per step
	Width int // inputs, hidden width and outputs
	Depth int // hidden layers
}

// DefaultStep is the step measured at a scale: batch 256 of a 512-wide, 3-deep MLP on a laptop
// (the notebook's literal), batch 8192 of a 4096-wide, 4-deep one at GPU scale (what `whygpu
// record` records).
func DefaultStep(s experiments.Scale) StepSizes {
	return experiments.Pick(s, StepSizes{Batch: 256, Width: 512, Depth: 3}, StepSizes{Batch: 8192, Width: 4096, Depth: 4})
}

// Limits of StepSizes, checked before anything is compiled or allocated.
const (
	MaxStepBatch  = 65536
	MaxStepWidth  = 8192
	MaxStepDepth  = 16
	MaxStepFLOPs  = 2e11    // one step: seconds on a laptop CPU, and it is timed several times
	MaxStepParams = 1 << 28 // Adam keeps 4 float32 copies: 4 GiB
)

// Validate says why a step is refused: a batch, width or depth out of range, more parameters than
// Adam's state fits in memory, or a step too large to time in seconds.
func (z StepSizes) Validate() error {
	switch {
	case z.Batch < 1 || z.Batch > MaxStepBatch:
		return fmt.Errorf("%s: batch %d refused before anything is allocated: use 1…%d", Lesson, z.Batch, MaxStepBatch)
	case z.Width < 1 || z.Width > MaxStepWidth:
		return fmt.Errorf("%s: width %d refused before anything is allocated: use 1…%d", Lesson, z.Width, MaxStepWidth)
	case z.Depth < 1 || z.Depth > MaxStepDepth:
		return fmt.Errorf("%s: depth %d refused: use 1…%d hidden layers", Lesson, z.Depth, MaxStepDepth)
	}
	w := z.Model(nil)
	if p := w.NumParams(); p > MaxStepParams {
		return fmt.Errorf("%s: %.3g parameters refused before anything is allocated: Adam's weights, gradients and two moments would take %.3g GB; at most %d parameters", Lesson, float64(p), 16*float64(p)/1e9, MaxStepParams)
	}
	if f := w.FLOPs(); f > MaxStepFLOPs {
		return fmt.Errorf("%s: a step of %.3g FLOPs refused before anything is allocated: at most %.3g keep it in seconds (lower the batch, width or depth)", Lesson, f, float64(MaxStepFLOPs))
	}
	return nil
}

// Model is the step's MLP on dev: float32, or bfloat16 mixed precision on a GPU (dev nil: float32).
func (z StepSizes) Model(dev *devices.Device) workloads.MLP {
	w := workloads.MLP{Batch: z.Batch, In: z.Width, Hidden: z.Width, Depth: z.Depth, Out: z.Width, Type: dtypes.Float32, Optimizer: workloads.Adam}
	if dev != nil && dev.IsGPU() {
		w.Type = dtypes.BFloat16
	}
	return w
}

// StepModel is the MLP whose training step measures a device's achieved rate at a scale:
// DefaultStep(s).Model(dev).
func StepModel(dev *devices.Device, s experiments.Scale) workloads.MLP {
	return DefaultStep(s).Model(dev)
}

// StepRate measures StepModel's training step on dev: its achieved FLOP/s is the rate a real
// training step gets there, optimizer and memory-bound operations included.
func StepRate(dev *devices.Device, s experiments.Scale) (results.Result, error) {
	return stepRateOf(dev, StepModel(dev, s))
}

func stepRateOf(dev *devices.Device, w workloads.MLP) (results.Result, error) {
	return measure.Run(dev, w, measure.Options{Warmup: 2, Reps: 5}, false)
}

// RatesHere measures this machine's rates on the default device — its measured float32 matmul
// ceiling and a real MLP training step of the learner's sizes — keeps the step results (with any
// recorded ones, at the sizes they were recorded at) for later cells, and returns all the rates:
// the source's (model), this machine's (live) and recorded GPUs'.
func RatesHere(z StepSizes) ([]Rate, []results.Result, error) {
	if err := z.Validate(); err != nil {
		return nil, nil, err
	}
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
			Note: "measured matmul ceiling, " + dev.Model, Disturbed: results.WhyDisturbed(c.Results...)})
	}
	r, err := stepRateOf(dev, z.Model(dev))
	if err != nil {
		return rates, nil, err
	}
	rs, err := experiments.WithRecorded([]results.Result{r}, Lesson, "step-rate")
	if err != nil {
		return rates, rs, err
	}
	for _, x := range rs {
		src, note := charts.Live, x.Label
		if x.Provenance.Recorded {
			src, note = charts.Recorded, x.Provenance.Model+", "+x.Provenance.Date.Format("2006-01-02")
		}
		rates = append(rates, Rate{Name: fmt.Sprintf("%s: a real Adam MLP training step (%s)", x.Provenance.Device, x.DType), FLOPS: x.FLOPS(), Source: src, Note: note,
			Disturbed: results.WhyDisturbed(x)})
	}
	return rates, rs, results.Keep(KeepRates, rs)
}

// rateOrigins is where the rates come from, for a table's badges.
func rateOrigins(rates []Rate) []units.Origin {
	var os []units.Origin
	for _, r := range rates {
		os = append(os, r.Source.Origin(r.Note))
	}
	return os
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
	var disturbed []string
	for _, r := range rates {
		slower := "—"
		if ref > 0 {
			slower = fmt.Sprintf("%.3g×", ref/r.FLOPS)
		}
		// A model's note (its assumptions) travels in the table's origin badges, not in each row.
		src := r.Source.Brief(r.Note)
		disturbed = append(disturbed, r.Disturbed)
		rows = append(rows, []string{r.Name, src, units.SI(r.FLOPS, "FLOP/s"),
			units.Duration(r.SecondsPerStep(run)), formatDays(r.Days(run)), slower})
	}
	return units.Table{Origins: rateOrigins(rates), Header: []string{"rate", "where the rate comes from", "sustained", "per step", "whole run", "vs the source's H100 rate"}, Rows: rows, Disturbed: disturbed}
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
	return units.Table{Origins: []units.Origin{units.Formula("6·N·tokens per step, 6·N·T for the run, 16 bytes × N of state: the run's N and T")}, Header: []string{"quantity", "formula", "value"}, Rows: [][]string{
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
func MFU(r results.Result) (ofPeak, ofCeiling float64) {
	return r.PercentOfPeak(), func() float64 {
		if r.CeilingFLOPS > 0 {
			return 100 * r.FLOPS() / r.CeilingFLOPS
		}
		return 0
	}()
}

// MFULine is the sentence the notebook prints from a kept step: its achieved rate, its MFU against
// the datasheet (or CPU model) peak and its share of the measured matmul ceiling, and what that share
// says — below the ceiling, as a whole step should be, or above it, when the ceiling was measured low
// (other programs loading the machine then), so the prose never states it before it is measured.
func MFULine(r results.Result) string {
	ofPeak, ofCeiling := MFU(r)
	s := fmt.Sprintf("%s step: %.1f GFLOP/s achieved = MFU %.0f%% of the %s peak (model)", r.Provenance.Device, r.GFLOPS(), ofPeak, r.Precision)
	switch {
	case ofCeiling == 0:
		return s + "; no measured matmul ceiling to compare with"
	case ofCeiling <= 100:
		return s + fmt.Sprintf(", %.0f%% of the measured matmul ceiling: below a large matmul, as a whole step should be", ofCeiling)
	default:
		return s + fmt.Sprintf(", %.0f%% of the measured matmul ceiling: above it, so the ceiling was measured low (other programs loaded the machine then: look for a ⚠ mark above) — rerun when the machine is quiet", ofCeiling)
	}
}

// ---- scaling past one device ----

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
	{"NVLink between H100s in one node", datasheet.H100.NVLinkBytes, "datasheet: H100 SXM NVLink 900 GB/s total, 450 GB/s each way"},
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
	return units.Table{Origins: append(rateOrigins([]Rate{rate}), units.Model(link.Note+"; a ring all-reduce of f32 gradients every step, no overlap")), Header: []string{fmt.Sprintf("%s (%s)", rate.Name, link.Name), "compute per step", fmt.Sprintf("gradient sync (%s of f32 gradients)", units.BytesFixed(grad)),
		"time computing", "whole run"}, Rows: rows}
}

// ---- batch-1 inference ----

// SmallMLP is the model served: 64 → 256 × 2 → 10, about 85 k parameters, batch 1.
var SmallMLP = workloads.MLPForward{Batch: 1, In: 64, Hidden: 256, Out: 10, Depth: 2}

// Inference times one batch-1 forward pass of SmallMLP on dev (checked against float64 first).
// Each timed sample covers several passes (they are microseconds each), so the median is stable.
func Inference(dev *devices.Device) (results.Result, error) { return inferenceOf(dev, SmallMLP) }

// inferenceOf times one forward pass of w on dev, checked against float64 first.
func inferenceOf(dev *devices.Device, w workloads.MLPForward) (results.Result, error) {
	r, err := measure.Run(dev, w, measure.Options{Warmup: 20, Reps: 7, SampleTime: 20 * time.Millisecond}, true)
	if err != nil {
		return r, err
	}
	if r.RelErr > 1e-4 {
		return r, fmt.Errorf("bigpicture: %s gave a wrong forward pass (relative error %.2g)", dev.Name, r.RelErr)
	}
	return r, nil
}

// InferenceHere times the learner's request (SmallMLP's in the notebook: batch 1, hidden 256,
// depth 2) on every XLA device here, adds recorded results for devices this machine lacks (at
// SmallMLP, where they were recorded), and keeps them.
func InferenceHere(q Request) ([]results.Result, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "batch1-inference", KeepInference, func(d *devices.Device) ([]results.Result, error) {
		r, err := inferenceOf(d, q.forward())
		if err != nil {
			return nil, err
		}
		return []results.Result{r}, nil
	})
}

// WhereTimeGoes is the view "where the time would go on an H200" for the training step z (as
// xla:cpu compiles it, float32 so TF32 products): its kernels by class with the GPU model's time,
// share and bound (gpumodel.WhereTimeGoes). Sizes out of range are refused first.
func WhereTimeGoes(z StepSizes) (units.Table, error) {
	if err := z.Validate(); err != nil {
		return units.Table{}, err
	}
	return gpumodel.WhereTimeGoes(gpumodel.StepEstimate(z.Model(nil))), nil
}

// ModelCard is the GPU model's card as markdown: the published GPU measurements it is checked
// against, each with its source and the model's band for the same work (gpumodel.CardMarkdown),
// then the model against every recording under lessons/reference/ (stepcharts.CardVersus: one
// line saying there is none yet until a GPU run is recorded; a failure to read one is shown, not
// dropped), and the card's origins for its badges (display.MarkdownTable): figures others published
// on the GPUs each row names, and the course's model.
func ModelCard() (string, []units.Origin) {
	lines, err := stepcharts.CardVersus()
	if err != nil {
		lines = append(lines, "model vs recording: reading lessons/reference/ failed: "+err.Error())
	}
	md := "GPU model card (a band per row, not a measurement of this machine; every modeled number in the course comes from this model):\n\n" +
		gpumodel.CardMarkdown() + "\n**Model vs recording**, per recorded experiment:\n\n- " + strings.Join(lines, "\n- ") + "\n"
	return md, []units.Origin{
		units.RecordedOn("H100/A100 by others, published 2023–2025 (each row's source)"),
		units.Model("the course's GPU model with its published-calibration assumptions (gpumodel.Published)"),
	}
}
