// Package dataparallel is the code behind notebooks/10-data-parallel.ipynb: data parallelism on
// several devices.
//
// The XLA CPU plugin exposes several devices (4 by default) that all run on this machine's cores:
// the lesson uses them to check that a data-parallel step (GoMLX SPMD, gradients summed with
// AllReduce) computes the same update as one device, and to time the all-reduce itself — correctness
// and communication, never speed-up. Interconnect numbers for GPUs come from pkg/model/gpumodel's link
// models, labeled as models.
package dataparallel

import (
	"fmt"
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
	"github.com/gpu-course/whygpu/pkg/teach/recall"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/corpus"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
	"github.com/gpu-course/whygpu/pkg/workloads/parallel"
	"github.com/gpu-course/whygpu/pkg/workloads/train"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "10-data-parallel"

// Names results are kept under between cells.
const (
	KeepAllReduce = Lesson + "-allreduce" // the all-reduce sweep
	KeepMemory    = Lesson + "-memory"    // the GPT's state bytes
)

// Step is the data-parallel step the lesson checks: an MLP 256→512×2→16 on a batch of 64, split over
// devices devices.
func Step(devicesN int) parallel.DataParallel {
	return parallel.DataParallel{Devices: devicesN,
		MLP: workloads.MLP{Batch: 64, In: 256, Hidden: 512, Out: 16, Depth: 2, Type: dtypes.Float32, Seed: 11}}
}

// SweepSizes are the gradient sizes (float32 values) the all-reduce sweep times.
func SweepSizes(s experiments.Scale) []int {
	return experiments.Pick(s, []int{1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22}, []int{1 << 10, 1 << 14, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26})
}

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = experiments.List{
	{
		Lesson: Lesson, Name: "allreduce",
		Doc: "AllReduce (sum) of a float32 gradient across the device's devices vs its size (laptop 4 KiB–16 MiB, GPU up to 256 MiB); needs ≥ 2 devices",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			dev, err := splitOf(dev)
			if err != nil {
				return nil, err
			}
			n := dev.Backend().NumDevices()
			if n < 2 {
				return nil, fmt.Errorf("%w: %s exposes %d device; an all-reduce needs at least 2 (with one GPU the lesson shows the NVLink and network models only)", experiments.ErrNotApplicable, dev.Name, n)
			}
			return AllReduceSweepOn(dev, min(4, n), SweepSizes(s), nil)
		},
	},
}

// splitDevice is the device this lesson splits its step over: the GPU when there is one (one GPU is
// one device), else the CPU plugin opened as four devices (devices.CPUSplit) — the course's other
// lessons open it as one device, which runs a single step faster (a pool thread per core).
func splitDevice() (*devices.Device, error) {
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	return splitOf(dev)
}

// splitOf is dev as this lesson splits a step over it: the XLA CPU plugin reopened as four devices
// (devices.CPUSplit); any other device (a GPU, the Go backend) as it is.
func splitOf(dev *devices.Device) (*devices.Device, error) {
	if dev.Name != devices.CPU || dev.Backend().NumDevices() >= 2 {
		return dev, nil
	}
	return devices.Open(devices.CPUSplit)
}

// DevicesHere says how many devices the lesson's device's backend exposes and what they are.
func DevicesHere() (string, error) {
	dev, err := splitDevice()
	if err != nil {
		return "", err
	}
	n := dev.Backend().NumDevices()
	msg := fmt.Sprintf("%s exposes **%d devices** (%s).", dev.Name, n, dev.Model)
	switch {
	case dev.IsGPU() && n == 1:
		msg += " One GPU: there is nothing to exchange gradients with; the steps below need ≥ 2 devices and say so."
	case !dev.IsGPU():
		msg += fmt.Sprintf(" They are slices of the same %d cores and the same memory: splitting a step over them checks correctness and measures communication, it cannot make training faster.", dev.Cores)
	}
	return msg, nil
}

// Check runs the data-parallel step on every device count from 2 to what the default device has
// (at most 4) and on one device, and tabulates the comparison (measured live).
func Check() (units.Table, error) {
	dev, err := splitDevice()
	if err != nil {
		return units.Table{}, err
	}
	header := []string{"devices", "per-device batch", "loss, 1 device", "loss, all-reduced", "max |Δparam| / max|param|", "equal (tol 1e-5)", "step: 1 device", "step: SPMD"}
	var rows [][]string
	var disturbed []string
	for n := 2; n <= min(4, dev.Backend().NumDevices()); n *= 2 {
		w := Step(n)
		probe := measure.StartProbe() // the step times are measured: say when others disturbed them
		c, err := parallel.CompareSteps(dev, w)
		if err != nil {
			return units.Table{Origins: []units.Origin{units.MeasuredHere()}, Header: header, Rows: rows, Disturbed: disturbed}, err
		}
		disturbed = append(disturbed, probe.Stop().Why())
		rows = append(rows, []string{fmt.Sprint(n), fmt.Sprint(w.MLP.Batch / n), fmt.Sprintf("%.6f", c.LossSingle), fmt.Sprintf("%.6f", c.LossParallel),
			fmt.Sprintf("%.1e", c.MaxRelDiff), fmt.Sprint(c.Equal()), c.SingleTime.Round(time.Microsecond).String(), c.ParallelTime.Round(time.Microsecond).String()})
	}
	if len(rows) == 0 {
		return units.Table{Origins: []units.Origin{units.MeasuredHere()}, Header: header, Rows: rows, Disturbed: disturbed}, fmt.Errorf("dataparallel: %s has one device: data parallelism needs at least 2", dev.Name)
	}
	return units.Table{Origins: []units.Origin{units.MeasuredHere()}, Header: header, Rows: rows, Disturbed: disturbed}, nil
}

// AllReduceSweep times the all-reduce on the default device for the scale's sizes and keeps the
// results for the chart.
func AllReduceSweep(progress func(done, total int, format string, args ...any)) ([]results.Result, error) {
	dev, err := splitDevice()
	if err != nil {
		return nil, err
	}
	rs, err := AllReduceSweepOn(dev, min(4, dev.Backend().NumDevices()), SweepSizes(experiments.CurrentScale()), progress)
	if err != nil {
		return rs, err
	}
	return rs, results.Keep(KeepAllReduce, rs)
}

// AllReduceSweepOn times an all-reduce of n float32 values across devicesN devices of dev, for each
// size.
func AllReduceSweepOn(dev *devices.Device, devicesN int, sizes []int, progress func(done, total int, format string, args ...any)) ([]results.Result, error) {
	var out []results.Result
	for i, n := range sizes {
		if progress != nil {
			progress(i, len(sizes), "%s", units.Bytes(float64(4*n)))
		}
		reps := 5
		if n >= 1<<22 {
			reps = 3
		}
		probe := measure.StartProbe()
		samples, err := parallel.AllReduceTime(dev, devicesN, n, reps)
		if err != nil {
			return out, err
		}
		out = append(out, results.Result{
			Workload: "allreduce", Label: fmt.Sprintf("all-reduce %s over %d devices", units.Bytes(float64(4*n)), devicesN),
			DType: "float32", Params: map[string]int{"values": n, "devices": devicesN}, Bytes: float64(4 * n),
			Stats: probe.Summarize(samples), RelErr: -1, Provenance: results.ProvenanceOf(dev),
		})
	}
	if progress != nil {
		progress(len(sizes), len(sizes), "done")
	}
	return out, nil
}

// AllReduceChart draws measured all-reduce time against gradient size (live or recorded) with the
// ring all-reduce model of each link for 8 GPUs, each a band drawn as its fast and slow ends.
func AllReduceChart(rs []results.Result) (*plot.Plot, error) {
	var series []charts.Series
	byDev := map[string][]charts.XY{}
	var order []string
	var src = map[string]charts.Source{}
	var sizes []float64
	for _, r := range rs {
		k := fmt.Sprintf("%s, %d devices", r.Provenance.Device, r.Params["devices"])
		if _, ok := byDev[k]; !ok {
			order = append(order, k)
			src[k] = charts.Live
			if r.Provenance.Recorded {
				src[k] = charts.Recorded
			}
		}
		byDev[k] = append(byDev[k], charts.XY{X: r.Bytes, Y: r.Seconds()})
		sizes = append(sizes, r.Bytes)
	}
	for _, k := range order {
		series = append(series, charts.Series{Name: k + " (shared cores)", Points: byDev[k], Source: src[k]})
	}
	for _, l := range []gpumodel.Link{gpumodel.NVLinkH200, gpumodel.Net100G} {
		var lo, hi []charts.XY
		for _, b := range sizes {
			a, z := l.RingAllReduce(b, 8)
			lo, hi = append(lo, charts.XY{X: b, Y: a.Seconds()}), append(hi, charts.XY{X: b, Y: z.Seconds()})
		}
		series = append(series,
			charts.Series{Name: l.Name + ", 8 GPUs, fast end", Points: lo, Source: charts.Model, Note: "ring all-reduce band"},
			charts.Series{Name: l.Name + ", 8 GPUs, slow end", Points: hi, Source: charts.Model, Note: "ring all-reduce band"})
	}
	return charts.Lines(charts.Axes{Title: "All-reduce (sum) of a float32 gradient", X: "gradient size [bytes]", Y: "time [s]", LogX: true, LogY: true}, series...)
}

// ExchangeTable is the per-step gradient exchange of a few models in float32 on 8 GPUs, for each
// modeled link (bands; no measurement).
func ExchangeTable() units.Table {
	header := []string{"model", "gradient (float32)"}
	for _, l := range gpumodel.Links {
		header = append(header, l.Name+", 8 GPUs (model)")
	}
	models := []struct {
		name   string
		params float64
	}{
		{"this lesson's GPT (lesson 09, laptop size)", float64(GPT().NumParams())},
		{"1 B parameters", 1e9},
		{"7 B parameters", 7e9},
	}
	var rows [][]string
	var nccl []string // how NCCL would run each row on NVLink, as "7 B parameters: NVLS, 1 ms – 2 ms"
	for _, m := range models {
		b := 4 * m.params
		row := []string{m.name, units.Bytes(b)}
		for _, l := range gpumodel.Links {
			lo, hi := l.RingAllReduce(b, 8)
			row = append(row, fmt.Sprintf("%s – %s", units.Duration(lo.Seconds()), units.Duration(hi.Seconds())))
		}
		rows = append(rows, row)
		lo, hi, algo := gpumodel.NVLinkH200.AllReduce(b, 8)
		nccl = append(nccl, fmt.Sprintf("%s: %s, %s – %s", m.name, algo, units.Duration(lo.Seconds()), units.Duration(hi.Seconds())))
	}
	note := fmt.Sprintf("The columns are the textbook ring (the formula below). On %s NCCL picks its algorithm and protocol by size "+
		"(the second rule below; GPU model bands, not measurements): %s.", gpumodel.NVLinkH200.Name, strings.Join(nccl, "; "))
	return units.Table{Origins: []units.Origin{units.Model("a ring all-reduce band on each link (gpumodel.Links)")}, Header: header, Rows: rows,
		Notes: []string{note, gpumodel.ChangeLine("collective")}}
}

// LinkAssumptions is the ring formula of ExchangeTable, the rule NCCL's choice follows
// (gpumodel.AllReduceRule) and where each link model's numbers come from.
func LinkAssumptions() string {
	return "Link models (assumptions, not measurements): ring all-reduce time = 2·(n−1)/n · bytes ÷ (efficiency · bandwidth) + 2·(n−1) · latency.\n\n" +
		gpumodel.AllReduceRule() + "\n" + linkSources()
}

// linkSources lists where each link model's numbers come from, one line per link.
func linkSources() string {
	var s string
	for _, l := range gpumodel.Links {
		s += "\n- " + l.Name + ": " + l.Source
	}
	return s
}

// GPT is lesson 09's model at laptop size, the model this lesson's memory arithmetic uses.
func GPT() gpt.GPT {
	return gpt.GPT{Vocab: corpus.NewTokenizer().Size(), Context: 64, Batch: 4, Embed: 64, Layers: 2, Heads: 4, Seed: 9}
}

// BatchRun is a short training run at one effective batch and learning rate.
type BatchRun struct {
	Name   string
	Batch  int
	LR     float64
	Losses []float64
}

// EffectiveBatch trains lesson 09's GPT for steps steps three ways: one device's batch (4 sequences),
// the effective batch of 4 devices × 4 at the same learning rate, and the same with the learning rate
// scaled ×4 (the linear scaling rule). Since a data-parallel step equals one step on the whole batch
// (checked above), the larger batch runs on one device. Measured live.
func EffectiveBatch(steps int, progress func(done, total int, format string, args ...any)) ([]BatchRun, error) {
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	base := GPT()
	const lr = 1e-3
	runs := []BatchRun{
		{Name: "1 device × 4 sequences, lr 1e-3", Batch: 4, LR: lr},
		{Name: "4 devices × 4 = 16 sequences, lr 1e-3", Batch: 16, LR: lr},
		{Name: "4 devices × 4 = 16 sequences, lr 4e-3 (×4)", Batch: 16, LR: 4 * lr},
	}
	ids, err := corpus.NewTokenizer().Encode(corpus.Text())
	if err != nil {
		return nil, err
	}
	for i := range runs {
		if progress != nil {
			progress(i, len(runs), "%s", runs[i].Name)
		}
		c := base
		c.Batch, c.LR = runs[i].Batch, runs[i].LR
		tr, err := train.NewGPTTrainer(dev, c)
		if err != nil {
			return runs, err
		}
		batches, err := data.NewTextBatches(ids, c.Batch, c.Context, 3)
		if err != nil {
			return runs, err
		}
		for range steps {
			in, tg := batches.Next()
			l, err := tr.Step(in, tg)
			if err != nil {
				return runs, err
			}
			runs[i].Losses = append(runs[i].Losses, l)
		}
	}
	if progress != nil {
		progress(len(runs), len(runs), "done")
	}
	return runs, nil
}

// BatchChart draws the runs' loss per step (measured live).
func BatchChart(runs []BatchRun) (*plot.Plot, error) {
	var series []charts.Series
	for _, r := range runs {
		pts := make([]charts.XY, len(r.Losses))
		for i, l := range r.Losses {
			pts[i] = charts.XY{X: float64(i + 1), Y: l}
		}
		series = append(series, charts.Series{Name: r.Name, Points: pts, Source: charts.Live})
	}
	return charts.Lines(charts.Axes{Title: "Effective batch and learning rate (lesson 09's GPT)", X: "step", Y: "loss (nats per character)"}, series...)
}

// BatchTable summarizes the runs: final loss (mean of the last 10 steps) and tokens seen.
func BatchTable(runs []BatchRun) units.Table {
	header := []string{"run", "sequences per step", "tokens seen", "final loss (last 10 steps, live)"}
	var rows [][]string
	for _, r := range runs {
		n := min(10, len(r.Losses))
		var s float64
		for _, l := range r.Losses[len(r.Losses)-n:] {
			s += l
		}
		rows = append(rows, []string{r.Name, fmt.Sprint(r.Batch), fmt.Sprint(r.Batch * GPT().Context * len(r.Losses)), fmt.Sprintf("%.3f", s/float64(n))})
	}
	return units.Table{Origins: []units.Origin{units.MeasuredHere()}, Header: header, Rows: rows}
}

// Memory is the state of lesson 09's GPT as GoMLX allocated it, read from its variable store after
// one training step.
type Memory struct {
	Params, Gradients, Optimizer int64
}

// Names of the kept state measurement's values (Metrics): bytes of the parameters and of Adam's state.
const (
	MetricParamsBytes    = "params_bytes"
	MetricOptimizerBytes = "optimizer_bytes"
)

// MeasureMemory runs one step of the learner's GPT (GPT's sizes in the notebook) and reads the bytes
// of its parameters and of Adam's state from GoMLX's store; gradients are one float32 per parameter
// (as big as the parameters).
func MeasureMemory(s State) (Memory, error) {
	if err := s.Validate(); err != nil {
		return Memory{}, err
	}
	dev, err := devices.Default()
	if err != nil {
		return Memory{}, err
	}
	c := s.Model()
	tr, err := train.NewGPTTrainer(dev, c)
	if err != nil {
		return Memory{}, err
	}
	ids := make([]int32, c.Tokens())
	if _, err := tr.Step(ids, ids); err != nil {
		return Memory{}, err
	}
	p, o := tr.StateBytes()
	kept := results.Result{Workload: "gpt-state", Label: c.String() + " state after one step", RelErr: -1,
		Metrics: map[string]float64{MetricParamsBytes: float64(p), MetricOptimizerBytes: float64(o)}, Provenance: results.ProvenanceOf(dev)}
	return Memory{Params: p, Gradients: p, Optimizer: o}, results.Keep(KeepMemory, []results.Result{kept})
}

// AdamRatio is a kept state measurement's Adam bytes over its parameter bytes (results.Result.Metric
// also reads one saved when these were kept among the Params); an error when it holds no parameters.
func AdamRatio(r results.Result) (float64, error) {
	p, _ := r.Metric(MetricParamsBytes)
	o, _ := r.Metric(MetricOptimizerBytes)
	if p == 0 {
		return 0, fmt.Errorf("dataparallel: no memory measurement kept: run the memory cell first")
	}
	return o / p, nil
}

// AdamLine is the measured "Adam's state is twice the model" sentence.
func (m Memory) AdamLine() string {
	return fmt.Sprintf("Measured in GoMLX's store after one step: parameters %s, Adam's state %s = **%.2f×** the parameters (two moments per parameter, plus a step counter).",
		units.Bytes(float64(m.Params)), units.Bytes(float64(m.Optimizer)), float64(m.Optimizer)/float64(m.Params))
}

// ZeROTable is per-device memory for the model state over n devices: plain data parallelism
// (everything replicated), ZeRO stage 1 (optimizer state sharded), stage 2 (+ gradients), stage 3 /
// FSDP (+ parameters). Arithmetic on the measured sizes; activations are not included.
func (m Memory) ZeROTable(n int) units.Table {
	header := []string{fmt.Sprintf("scheme (%d devices)", n), "parameters", "gradients", "Adam state", "per device", "what it costs"}
	type stage struct {
		name          string
		pSh, gSh, oSh bool
		cost          string
	}
	stages := []stage{
		{"data parallel (replicated)", false, false, false, "one all-reduce of the gradients per step"},
		{"ZeRO-1: shard Adam's state", false, false, true, "same traffic; each device updates its slice, then all-gather the parameters"},
		{"ZeRO-2: + shard gradients", false, true, true, "reduce-scatter instead of all-reduce: same bytes"},
		{"ZeRO-3 / FSDP: + shard parameters", true, true, true, "all-gather each layer's parameters before use, forward and backward: ~1.5× the traffic"},
	}
	part := func(b int64, sharded bool) int64 {
		if sharded {
			return (b + int64(n) - 1) / int64(n)
		}
		return b
	}
	var rows [][]string
	for _, s := range stages {
		p, g, o := part(m.Params, s.pSh), part(m.Gradients, s.gSh), part(m.Optimizer, s.oSh)
		rows = append(rows, []string{s.name, units.Bytes(float64(p)), units.Bytes(float64(g)), units.Bytes(float64(o)), units.Bytes(float64(p + g + o)), s.cost})
	}
	return units.Table{Origins: []units.Origin{units.Formula("ZeRO's sharding of the model state's sizes over n devices")}, Header: header, Rows: rows}
}

// Deck is the lesson's recall checks, one section per "## " section of the notebook.
var Deck = &recall.Deck{
	Lesson: Lesson,
	Title:  "Data parallelism on several devices",
	Sections: []recall.Section{
		{ID: "check", Title: "One step, several devices", Cards: []recall.Card{
			{ID: "same", Question: "Why does a data-parallel step give the same update as one device on the whole batch?",
				Answer: "Each device takes the gradient of the mean loss over its equal slice; summing those gradients with an all-reduce and dividing by the device count gives the gradient of the mean over the whole batch, and every device applies it to identical parameters."},
			{ID: "cpu", Question: "Why can't the CPU's several devices show a speed-up?",
				Answer: "They are slices of the same cores and memory: the work is the same and now it also pays for the exchange. They show correctness and communication cost only."},
		}},
		{ID: "exchange", Title: "The gradient exchange", Cards: []recall.Card{
			{ID: "ring", Question: "How many bytes does each GPU send in a ring all-reduce of G bytes over n GPUs?",
				Answer: "2·(n−1)/n · G — almost twice the gradient, whatever n is, every step."},
			{ID: "link", Question: "Why do multi-GPU servers have NVLink rather than only a network port?",
				Answer: "The full gradient crosses the link every step: at 450 GB/s each way it takes milliseconds for a billion parameters; at 100 Gb/s it takes a large share of the step, or more."},
		}},
		{ID: "batch", Title: "Effective batch", Cards: []recall.Card{
			{ID: "effective", Question: "What is the effective batch of data-parallel training, and what must change with it?",
				Answer: "Devices × per-device batch. Its gradient is less noisy but the steps are no longer: at the same learning rate the larger batch buys little per step. Raising the rate with the batch (linearly for SGD as a starting point, less for Adam, with a warm-up) turns the extra samples into progress, up to a point."},
		}},
		{ID: "memory", Title: "Memory: ZeRO and FSDP", Cards: []recall.Card{
			{ID: "adam", Question: "How big is Adam's state next to the model, and what does ZeRO do about it?",
				Answer: "Twice the parameters (two float32 moments each). ZeRO shards it over the devices (stage 1), then the gradients (2) and the parameters (3, FSDP), so per-device state falls toward 1/n of it."},
		}},
		modelSection,
	},
}
