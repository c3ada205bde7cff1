// Package smallgpt is the code behind notebooks/09-small-gpt.ipynb: a small GPT, trained live.
//
// The model is gpt.GPT (GoMLX's transformer layers, character tokens, the course's own prose
// from pkg/workloads/corpus). Notebook cells stay thin: they call the functions here. Every GoNB cell is a new
// process, so what a later cell needs (the training run, the sweep) is kept on disk.
package smallgpt

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/recall"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/corpus"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
	"github.com/gpu-course/whygpu/pkg/workloads/train"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "09-small-gpt"

// Names results are kept under between cells.
const (
	KeepRun   = Lesson + "-run"
	KeepSweep = Lesson + "-context-sweep"
)

// Prompt is what the trained model continues.
const Prompt = "The GPU "

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = slices.Concat(smallgptExperiments, steppartsExperiments)

var smallgptExperiments = experiments.List{
	{
		Lesson: Lesson, Name: "train",
		Doc: "train the small GPT on the course text: step time, tokens/s, FLOP/s (laptop 300 steps d=64; GPU 600 steps d=256)",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			run, err := TrainOn(dev, Config(s), Steps(s), nil)
			if err != nil {
				return nil, err
			}
			return []results.Result{run.Result}, nil
		},
	},
	{
		Lesson: Lesson, Name: "context-sweep",
		Doc: "one training step at a fixed token count, sequence length 64 → 1024 (laptop 64/256/1024, GPU 64…4096)",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return SweepOn(dev, Config(s), SweepLengths(s), nil)
		},
	},
}

// Config is the model trained at a scale: laptop L=2, d=64, 4 heads, 64-character windows, 16 per
// step; GPU L=4, d=256, 8 heads, 256-character windows, 64 per step.
func Config(s experiments.Scale) gpt.GPT {
	v := corpus.NewTokenizer().Size()
	return experiments.Pick(s,
		gpt.GPT{Vocab: v, Context: 64, Batch: 16, Embed: 64, Layers: 2, Heads: 4, Seed: 9},
		gpt.GPT{Vocab: v, Context: 256, Batch: 64, Embed: 256, Layers: 4, Heads: 8, LR: 1e-3, Seed: 9})
}

// Steps is how many training steps a scale runs.
func Steps(s experiments.Scale) int { return experiments.Pick(s, 300, 600) }

// SweepLengths are the sequence lengths the context sweep measures.
func SweepLengths(s experiments.Scale) []int {
	return experiments.Pick(s, []int{64, 256, 1024}, []int{64, 128, 256, 512, 1024, 2048, 4096})
}

// Live shows a chart that updates in place (display.LiveChart satisfies it).
type Live interface {
	Update(p *plot.Plot, caption string)
	Done(p *plot.Plot, caption string)
}

// Run is one training run.
type Run struct {
	Config  gpt.GPT        `json:"config"`
	Losses  []float64      `json:"losses"` // per step, nats per character
	Sample  string         `json:"sample"` // greedy continuation of Prompt after training
	Wall    time.Duration  `json:"wall_ns"`
	Result  results.Result `json:"result"` // step time (first, compiling step excluded), FLOPs per step
	Ceiling float64        `json:"ceiling_flops"`
	Peak    float64        `json:"peak_flops"`
}

// TokensPerSec is the training throughput at the median step time.
func (r Run) TokensPerSec() float64 {
	return float64(r.Config.Tokens()) / r.Result.Seconds()
}

// Train trains the scale's model on the default device (the GPU when there is one), drawing the loss
// curve in live as it goes, then continues Prompt greedily, and keeps the run for later cells.
func Train(live Live) (Run, error) {
	dev, err := devices.Default()
	if err != nil {
		return Run{}, err
	}
	if !dev.IsGPU() {
		// MFU's GPU model needs the GPU-scale step's kernels counted on xla:cpu: a few seconds of
		// XLA compile the first time on this machine (kept on disk after), spent here, before the
		// timed steps, so that the MFU cell answers at once.
		if live != nil {
			live.Update(nil, "counting the kernels of the "+Config(experiments.GPU).String()+" step on xla:cpu for the GPU model (once on this machine)…")
		}
		gpumodel.GPTStepKernels(Config(experiments.GPU))
	}
	s := experiments.CurrentScale()
	run, err := TrainOn(dev, Config(s), Steps(s), live)
	if err != nil {
		return run, err
	}
	return run, keepJSON(KeepRun, run)
}

// TrainOn trains c for steps steps on dev (live may be nil).
func TrainOn(dev *devices.Device, c gpt.GPT, steps int, live Live) (Run, error) {
	run := Run{Config: c}
	if steps < 2 {
		return run, fmt.Errorf("smallgpt: train at least 2 steps, not %d", steps)
	}
	tok := corpus.NewTokenizer()
	ids, err := tok.Encode(corpus.Text())
	if err != nil {
		return run, err
	}
	tr, err := train.NewGPTTrainer(dev, c)
	if err != nil {
		return run, err
	}
	batches, err := data.NewTextBatches(ids, c.Batch, c.Context, uint64(c.Seed))
	if err != nil {
		return run, err
	}
	start := time.Now()
	probe := measure.StartProbe()
	var times []time.Duration
	last := time.Now()
	for i := range steps {
		in, tg := batches.Next()
		t0 := time.Now()
		loss, err := tr.Step(in, tg)
		if err != nil {
			return run, err
		}
		if i > 0 {
			times = append(times, time.Since(t0))
		}
		run.Losses = append(run.Losses, loss)
		if live != nil && (time.Since(last) > 700*time.Millisecond || i == 0) {
			last = time.Now()
			p, _ := LossChart(run)
			live.Update(p, caption(run, i+1, steps, times, tr.Compile))
		}
	}
	run.Wall = time.Since(start)
	prompt, err := tok.Encode(Prompt)
	if err != nil {
		return run, err
	}
	out, err := tr.Greedy(prompt, 120)
	if err != nil {
		return run, err
	}
	run.Sample = tok.Decode(out)
	r := results.Result{
		Workload: c.Name(), Label: c.String(), DType: "float32", Precision: "float32",
		Params: map[string]int{"vocab": c.Vocab, "context": c.Context, "batch": c.Batch, "embed": c.Embed,
			"layers": c.Layers, "heads": c.Heads, "steps": steps},
		FLOPs: c.FLOPs(), Compile: tr.Compile, Stats: probe.Summarize(times), RelErr: -1,
		PeakFLOPS: dev.Ceilings.Peak("float32"), PeakSource: dev.Ceilings.Source, Provenance: results.ProvenanceOf(dev),
	}
	if ceil, ok := measure.CachedCeilings(dev); ok {
		r.CeilingFLOPS = ceil.FLOPS["float32"]
	}
	run.Result, run.Peak, run.Ceiling = r, r.PeakFLOPS, r.CeilingFLOPS
	if live != nil {
		p, _ := LossChart(run)
		live.Done(p, caption(run, steps, steps, times, tr.Compile))
	}
	return run, nil
}

func caption(run Run, done, steps int, times []time.Duration, compile time.Duration) string {
	c := run.Config
	loss := run.Losses[len(run.Losses)-1]
	msg := fmt.Sprintf("step %d/%d  loss %.3f nats/char (measured live)", done, steps, loss)
	if len(times) > 0 {
		med := measure.Summarize(times).Median
		msg += fmt.Sprintf("  %s/step  %.0f tokens/s", med.Round(100*time.Microsecond), float64(c.Tokens())/med.Seconds())
	} else {
		msg += fmt.Sprintf("  (first step, compiling: %s)", compile.Round(time.Millisecond))
	}
	return msg
}

// LossChart draws the loss per step, measured live.
func LossChart(run Run) (*plot.Plot, error) {
	pts := make([]charts.XY, len(run.Losses))
	for i, l := range run.Losses {
		pts[i] = charts.XY{X: float64(i + 1), Y: l}
	}
	return charts.Lines(charts.Axes{Title: "Training loss, " + run.Config.String(), X: "step", Y: "cross-entropy (nats per character)"},
		charts.Series{Name: "loss", Points: pts, Source: charts.Live, Note: run.Result.Provenance.Device})
}

// RecallRun reads the run Train kept.
func RecallRun() (Run, error) {
	var run Run
	return run, recallJSON(KeepRun, &run)
}

// SampleText is the sample of the kept run, with its prompt.
func SampleText() (string, error) {
	run, err := RecallRun()
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s|%s  (greedy, after %d steps, final loss %.2f)", Prompt, run.Sample, len(run.Losses), run.Losses[len(run.Losses)-1]), nil
}

// FLOPsTable counts one training step of c by class of matrix product (forward × 3, the backward
// pass doing two products per forward one), with 6·N·T and the total beside it.
func FLOPsTable(c gpt.GPT) units.Table {
	var header []string
	var rows [][]string
	header = []string{"matrix products (× 3: forward + backward)", "FLOPs per step (count)", "share"}
	total := c.FLOPs()
	for _, m := range c.ForwardMatMuls() {
		f := 3 * m.FLOPs()
		rows = append(rows, []string{m.What, units.SI(f, "FLOP"), fmt.Sprintf("%.1f%%", 100*f/total)})
	}
	rows = append(rows,
		[]string{"total (exact count of the graph's products)", units.SI(total, "FLOP"), "100%"},
		[]string{fmt.Sprintf("6·N·T  (N = %d matrix parameters, T = %d tokens)", c.MatmulParams(), c.Tokens()), units.SI(c.SixNT(), "FLOP"), fmt.Sprintf("%.1f%%", 100*c.SixNT()/total)},
		[]string{"12·L·s·d·T  (attention scores and values)", units.SI(c.AttentionFLOPs(), "FLOP"), fmt.Sprintf("%.1f%%", 100*c.AttentionShare())},
	)
	return units.Table{Origins: []units.Origin{units.Formula("the graph's matrix products counted exactly, beside 6·N·T and 12·L·s·d·T")}, Header: header, Rows: rows}
}

// RunFLOPsTable is FLOPsTable of the kept run's model.
func RunFLOPsTable() (units.Table, error) {
	run, err := RecallRun()
	if err != nil {
		return units.Table{}, err
	}
	return FLOPsTable(run.Config), nil
}

// ShareTable is the model's attention share as the sequence length grows (a count, no measurement):
// 12·L·s·d over 6·N + 12·L·s·d per token.
func ShareTable(c gpt.GPT, lengths []int) units.Table {
	var header []string
	var rows [][]string
	header = []string{"sequence length s", "6·N per token", "12·L·s·d per token", "attention share (count)"}
	for _, s := range lengths {
		c.Context = s
		t := float64(c.Tokens())
		rows = append(rows, []string{fmt.Sprint(s), units.SI(c.SixNT()/t, "FLOP"), units.SI(c.AttentionFLOPs()/t, "FLOP"),
			fmt.Sprintf("%.1f%%", 100*c.AttentionShare())})
	}
	return units.Table{Origins: []units.Origin{units.Formula("12·L·s·d ÷ (6·N + 12·L·s·d) per token")}, Header: header, Rows: rows}
}

// Sweep measures one training step of the lesson's model at the learner's width and depth on the
// default device at each of their lengths (SweepContexts: the notebook's literal is Config and
// SweepLengths at laptop scale), keeping the tokens per step fixed (batch × length = the model's
// own), and keeps the results for SweepWithRecorded.
func Sweep(c Contexts, progress func(done, total int, format string, args ...any)) ([]results.Result, error) {
	rs, err := SweepContexts(c, progress)
	if err != nil {
		return rs, err
	}
	return rs, results.Keep(KeepSweep, rs)
}

// SweepOn times a few training steps of c at each sequence length (tokens per step fixed at c's).
func SweepOn(dev *devices.Device, c gpt.GPT, lengths []int, progress func(done, total int, format string, args ...any)) ([]results.Result, error) {
	tokens := c.Tokens()
	tok := corpus.NewTokenizer()
	ids, err := tok.Encode(corpus.Text())
	if err != nil {
		return nil, err
	}
	var out []results.Result
	for i, s := range lengths {
		cs := c
		cs.Context, cs.Batch = s, max(1, tokens/s)
		if progress != nil {
			progress(i, len(lengths), "%s", cs.String())
		}
		tr, err := train.NewGPTTrainer(dev, cs)
		if err != nil {
			return out, err
		}
		batches, err := data.NewTextBatches(ids, cs.Batch, cs.Context, 1)
		if err != nil {
			return out, err
		}
		var stepErr error
		step := func() error {
			in, tg := batches.Next()
			_, stepErr = tr.Step(in, tg)
			return stepErr
		}
		stats, _, err := measure.Time(step, measure.Options{Warmup: 1, Reps: 3})
		if err != nil {
			return out, err
		}
		out = append(out, results.Result{
			Workload: cs.Name(), Label: cs.String(), DType: "float32", Precision: "float32",
			Params: map[string]int{"context": s, "batch": cs.Batch, "embed": cs.Embed, "layers": cs.Layers},
			FLOPs:  cs.FLOPs(), Compile: tr.Compile, Stats: stats, RelErr: -1,
			PeakFLOPS: dev.Ceilings.Peak("float32"), PeakSource: dev.Ceilings.Source, Provenance: results.ProvenanceOf(dev),
		})
	}
	if progress != nil {
		progress(len(lengths), len(lengths), "done")
	}
	return out, nil
}

// SweepChart draws, per sequence length, the measured step time (live or recorded) next to what the
// FLOP count predicts from the shortest length's measured FLOP/s (a model).
func SweepChart(rs []results.Result) (*plot.Plot, error) {
	if len(rs) == 0 {
		return nil, errors.New("smallgpt: no sweep results: run the sweep cell first")
	}
	var series []charts.Series
	byDev := map[string][]results.Result{}
	var order []string
	for _, r := range rs {
		k := r.Provenance.Label()
		if _, ok := byDev[k]; !ok {
			order = append(order, k)
		}
		byDev[k] = append(byDev[k], r)
	}
	for _, k := range order {
		on := byDev[k]
		src := charts.Live
		if on[0].Provenance.Recorded {
			src = charts.Recorded
		}
		var meas, pred []charts.XY
		rate := on[0].FLOPS()
		for _, r := range on {
			x := float64(r.Params["context"])
			meas = append(meas, charts.XY{X: x, Y: r.Seconds() * 1e3})
			pred = append(pred, charts.XY{X: x, Y: r.FLOPs / rate * 1e3})
		}
		series = append(series,
			charts.Series{Name: on[0].Provenance.Device + " step time", Points: meas, Source: src, Note: on[0].Provenance.Model},
			charts.Series{Name: on[0].Provenance.Device + " FLOP count ÷ FLOP/s at s=64", Points: pred, Source: charts.Model, Note: "6·N·T + 12·L·s·d·T"})
	}
	return charts.Lines(charts.Axes{Title: "One training step, same tokens per step, longer sequences", X: "sequence length s", Y: "ms per step",
		LogX: true, LogY: true}, series...)
}

// SweepWithRecorded is the kept live sweep (Sweep, at the learner's sizes) plus recordings from
// devices not here (at the sizes they were recorded at: Config and SweepLengths at GPU scale).
func SweepWithRecorded() ([]results.Result, error) {
	live, err := results.Recall(KeepSweep)
	if err != nil {
		return nil, err
	}
	return experiments.WithRecorded(live, Lesson, "context-sweep")
}

// mfuOrigins is where MFU's numbers come from: the kept training step (live), the ceiling measured
// here, the device's peak (a datasheet or the course's CPU model), the recordings and the GPU model.
func mfuOrigins(step results.Result, dev *devices.Device) []units.Origin {
	os := append(results.Origins([]results.Result{step}), units.MeasuredHere())
	if dev.Ceilings.Peak("float32") > 0 {
		os = append(os, units.Model(dev.Ceilings.Source))
	}
	if rec, err := experiments.Recorded(Lesson, "train"); err == nil {
		os = append(os, results.Origins(rec)...)
	}
	if !dev.IsGPU() {
		c := Config(experiments.GPU)
		m := gpumodel.Default()
		// The two model rows print only their labels; their assumptions travel in the badges' fold.
		os = append(os, units.Model(gpumodel.GPTStepEstimate(c).Note()),
			units.Model(m.Estimate(gpumodel.GPTRecipeStep(c, gpumodel.BF16Autocast, 0, true)).Note()))
	}
	return os
}

// MFU is the table of the training step's achieved FLOP/s over two ceilings: the share of the measured
// matmul ceiling of this device (measure.MeasureCeilings) and MFU proper, model FLOPs utilization, the
// achieved FLOP/s ÷ the device's datasheet/model peak (as lesson 08 defines it); then the recorded GPU
// runs, when there are any, and the GPU model's MFU band.
func MFU() (units.Table, error) {
	run, err := RecallRun()
	if err != nil {
		return units.Table{}, err
	}
	dev, err := devices.Open(run.Result.Provenance.Device)
	if err != nil {
		return units.Table{}, err
	}
	ceil, err := measure.MeasureCeilings(dev)
	if err != nil {
		return units.Table{}, err
	}
	achieved := run.Result.FLOPS()
	ceilNote := " (large f32 matmul, measured here)"
	if achieved > ceil.FLOPS["float32"] {
		// The kept ceiling was measured on a busier machine: measure the float32 matmul again now.
		if f, err := freshMatmulCeiling(dev); err == nil && f > ceil.FLOPS["float32"] {
			ceil.FLOPS["float32"], ceil.Date = f, time.Now()
			ceilNote = " (large f32 matmul, re-measured now: the kept one was lower)"
		}
	}
	header := []string{"device", "training step achieved", "÷ ceiling", "ratio", "source"}
	rows := [][]string{
		{dev.Name, units.SI(achieved, "FLOP/s"), units.SI(ceil.FLOPS["float32"], "FLOP/s") + ceilNote,
			fmt.Sprintf("%.1f%% of the measured matmul ceiling", 100*achieved/ceil.FLOPS["float32"]), "live"},
	}
	disturbed := []string{results.WhyDisturbed(append([]results.Result{run.Result}, ceil.Results...)...)}
	if achieved > ceil.FLOPS["float32"] {
		disturbed = append(disturbed, "")
		rows = append(rows, []string{"note", "", "", "", fmt.Sprintf("over 100%%: the machine was busier when the ceiling was measured (%s, kept 12 h) than during training; the ratio is not trustworthy", ceil.Date.Local().Format("15:04"))})
	}
	if p := dev.Ceilings.Peak("float32"); p > 0 {
		disturbed = append(disturbed, results.WhyDisturbed(run.Result))
		rows = append(rows, []string{dev.Name, units.SI(achieved, "FLOP/s"), units.SI(p, "FLOP/s") + " (" + dev.Ceilings.Source + ")",
			fmt.Sprintf("MFU %.1f%%", 100*achieved/p), "live ÷ model peak"})
	}
	rec, err := experiments.Recorded(Lesson, "train")
	if err != nil {
		return units.Table{Origins: mfuOrigins(run.Result, dev), Header: header, Rows: rows, Disturbed: disturbed}, err
	}
	for _, r := range rec {
		if r.PeakFLOPS > 0 {
			disturbed = append(disturbed, results.WhyDisturbed(r))
			rows = append(rows, []string{r.Provenance.Device + " " + r.Provenance.Model, units.SI(r.FLOPS(), "FLOP/s"),
				units.SI(r.PeakFLOPS, "FLOP/s") + " (" + r.PeakSource + ")", fmt.Sprintf("MFU %.1f%%", r.PercentOfPeak()),
				r.Provenance.Origin()})
		}
	}
	if !dev.IsGPU() {
		rows = append(rows, GPUModelRow(), GPURecipeRow())
		rows = append(rows, ModelVersusRows(rec)...)
	}
	return units.Table{Origins: mfuOrigins(run.Result, dev), Header: header, Rows: rows, Disturbed: disturbed}, nil
}

// ModelVersusRows puts the GPU model (GPUModelRow's band) beside each GPU recording of the
// GPU-scale training step in rec: one row per recording with the model's error against its step
// time (gpumodel's Versus), none for recordings of other work.
func ModelVersusRows(rec []results.Result) [][]string {
	m := gpumodel.Default()
	c := Config(experiments.GPU)
	e := gpumodel.GPTStepEstimate(c)
	var rows [][]string
	for _, r := range rec {
		if r.Provenance.Device != devices.CUDA || r.Stats.Median <= 0 || math.Abs(r.FLOPs/c.FLOPs()-1) > 1e-6 {
			continue
		}
		where := fmt.Sprintf("the %s step on %s, recorded on %s %s,", c, r.Provenance.Device, r.Provenance.Model, r.Provenance.Date.Format("2006-01-02"))
		rows = append(rows, []string{m.Name() + " vs recording", units.Duration(r.Seconds()), e.Band(), "", e.Versus(r.Stats.Median, r.Provenance.Recorded, where)})
	}
	return rows
}

// freshMatmulCeiling measures the float32 matmul of measure.CeilingWorkloads now, bypassing the
// 12-hour cache.
func freshMatmulCeiling(dev *devices.Device) (float64, error) {
	best := 0.0
	for _, w := range measure.CeilingWorkloads(dev) {
		if workloads.FLOPsOf(w) == 0 || workloads.DTypeOf(w).String() != "Float32" {
			continue
		}
		r, err := measure.Run(dev, w, measure.Options{Warmup: 2, Reps: 5}, false)
		if err != nil {
			return 0, err
		}
		best = max(best, r.FLOPS())
	}
	return best, nil
}

// GPUModelRow is the MFU band of the GPU-scale model on the course's GPU model (pkg/model/gpumodel):
// the step's FLOPs over the modeled step time band, over the H200's TF32 peak. A model, not a
// measurement.
func GPUModelRow() []string {
	m := gpumodel.Default()
	c := Config(experiments.GPU)
	e := gpumodel.GPTStepEstimate(c)
	peak := m.GPU.Peak("tf32")
	hi, lo := c.FLOPs()/e.Low.Seconds(), c.FLOPs()/e.High.Seconds()
	return []string{m.Name() + ", " + c.String(), units.SI(lo, "FLOP/s") + " – " + units.SI(hi, "FLOP/s"), units.SI(peak, "FLOP/s") + " (TF32 datasheet)",
		fmt.Sprintf("MFU %.0f%% – %.0f%%", 100*lo/peak, 100*hi/peak), "kernel-by-kernel model, ÷ TF32 peak: " + e.Label()}
}

// GPURecipeRow is the MFU band of the same GPU-scale model run as PyTorch trains a GPT today
// (gpumodel.BF16Autocast: bf16 operands, flash attention, fused AdamW) on the course's GPU model,
// over the H200's bf16 peak, with the line saying what changed in the model. A model, not a
// measurement.
func GPURecipeRow() []string {
	m := gpumodel.Default()
	c := Config(experiments.GPU)
	e := m.Estimate(gpumodel.GPTRecipeStep(c, gpumodel.BF16Autocast, 0, true))
	peak := m.GPU.Peak("bfloat16")
	hi, lo := c.FLOPs()/e.Low.Seconds(), c.FLOPs()/e.High.Seconds()
	return []string{m.Name() + ", " + c.String() + ", " + gpumodel.BF16Autocast.Name, units.SI(lo, "FLOP/s") + " – " + units.SI(hi, "FLOP/s"), units.SI(peak, "FLOP/s") + " (bf16 datasheet)",
		fmt.Sprintf("MFU %.0f%% – %.0f%%", 100*lo/peak, 100*hi/peak), e.Label() + "; " + gpumodel.ChangeLine("gpt")}
}

// BadInputs tries what a learner might: a prompt longer than the context, a character the corpus
// never uses, and a model whose training step does not fit in memory. Each is an error value (the
// kernel stays alive); the table shows the messages.
func BadInputs() units.Table {
	header := []string{"input", "what happens"}
	var rows [][]string
	show := func(what string, err error) {
		msg := "no error (unexpected)"
		if err != nil {
			msg = err.Error()
		}
		rows = append(rows, []string{what, msg})
	}
	dev, err := devices.Default()
	if err != nil {
		show("open the device", err)
		return units.Table{Origins: []units.Origin{units.MeasuredHere()}, Header: header, Rows: rows}
	}
	tok := corpus.NewTokenizer()
	c := gpt.GPT{Vocab: tok.Size(), Context: 16, Batch: 2, Embed: 16, Layers: 1, Heads: 2, Seed: 1}
	// No step is needed: the prompt is checked before anything runs.
	tr, err := train.NewGPTTrainer(dev, c)
	if err != nil {
		show("a tiny model", err)
		return units.Table{Origins: []units.Origin{units.MeasuredHere()}, Header: header, Rows: rows}
	}
	long, _ := tok.Encode(strings.Repeat("the ", 5))
	_, err = tr.Greedy(long, 1)
	show(fmt.Sprintf("a %d-character prompt for a model trained on %d", len(long), c.Context), err)
	_, err = tok.Encode("GPUs 🚀")
	show(`the prompt "GPUs 🚀"`, err)
	huge := c
	huge.Context, huge.Batch, huge.Embed, huge.Layers, huge.Heads = 8192, 512, 2048, 24, 16
	_, err = train.NewGPTTrainer(dev, huge)
	show(huge.String(), err)
	return units.Table{Origins: []units.Origin{units.MeasuredHere()}, Header: header, Rows: rows}
}

func keepJSON(name string, v any) error {
	return results.KeepValue(name, v) // atomic: other tabs may keep at once
}

// recallJSON loads what keepJSON kept under name in this run (results.RecallValue: refused when
// another run or a failed cell kept it).
func recallJSON[T any](name string, v *T) error {
	got, err := results.RecallValue[T](name)
	if err != nil {
		return err
	}
	*v = got
	return nil
}

// Deck is the lesson's recall checks, one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "A small GPT, trained live",
	Sections: []recall.Section{
		{ID: "train", Title: "Train it", Cards: []recall.Card{
			{ID: "start-loss", Question: "Why does the loss start near ln(vocabulary size)?",
				Answer: "An untrained model spreads its probability about evenly over the characters, and the cross-entropy of a uniform guess over V choices is ln V nats; random initial weights that are confidently wrong on some characters start it a little above."},
			{ID: "sample", Question: "What does the greedy sample tell you that the loss curve does not?",
				Answer: "What the falling loss means in practice: which spellings, words and patterns of the text the model has picked up in a few hundred steps."},
		}},
		{ID: "count", Title: "6·N·T, counted", Cards: []recall.Card{
			{ID: "six", Question: "Where do the 6 in 6·N·T come from?",
				Answer: "Each parameter in a matrix product costs a multiply and an add per token forward (2), and the backward pass does two such products per forward one (4 more)."},
			{ID: "attention", Question: "Which part of a transformer's FLOPs does 6·N·T leave out, and how does it grow?",
				Answer: "The attention scores and the weighted values: 12·L·s·d per token, growing with the sequence length s while 6·N stays fixed."},
		}},
		{ID: "mfu", Title: "MFU", Cards: []recall.Card{
			{ID: "define", Question: "What is MFU, and why is it well below 100% for this model?",
				Answer: "Achieved FLOP/s of the training step ÷ the device's ceiling. Small matrices, layer norms, softmax, the gather and the per-step overhead all take time without counting as model FLOPs."},
		}},
	},
}

// Model is the model trained at the current scale (WHYGPU_SCALE).
func Model() gpt.GPT { return Config(experiments.CurrentScale()) }

// Summary is one paragraph about a run: steps, loss (beside ln of the vocabulary size, where a model
// that knows nothing starts), step time, tokens/s and achieved FLOP/s.
func Summary(run Run) string {
	if len(run.Losses) == 0 {
		return "no steps ran"
	}
	r := run.Result
	return fmt.Sprintf("**%s**, %d steps in %s on %s: loss %.2f → %.2f nats/char (knowing nothing: ln %d = %.2f); median step %s (first step, compiling: %s); "+
		"**%.0f tokens/s**, %s of model FLOPs per step → %s achieved.",
		run.Config, len(run.Losses), run.Wall.Round(100*time.Millisecond), r.Provenance.Label(), run.Losses[0], run.Losses[len(run.Losses)-1],
		run.Config.Vocab, math.Log(float64(run.Config.Vocab)),
		r.Stats.Median.Round(10*time.Microsecond), r.Compile.Round(time.Millisecond), run.TokensPerSec(), units.SI(r.FLOPs, "FLOP"), units.SI(r.FLOPS(), "FLOP/s"))
}

// WhereTimeGoes is the view "where the time would go on an H200" for one training step of c: its
// kernels (xla:cpu's compile of the step) by class with the GPU model's time, share and bound, to
// read beside the measured xla:cpu shares of SharesTable (gpumodel.WhereTimeGoes).
func WhereTimeGoes(c gpt.GPT) (units.Table, error) {
	if err := c.Validate(); err != nil {
		return units.Table{}, err
	}
	return gpumodel.WhereTimeGoes(gpumodel.GPTStepEstimate(c)), nil
}
