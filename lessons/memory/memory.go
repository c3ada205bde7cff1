// Package memory is the code behind notebooks/06-memory.ipynb: what a training step keeps in memory
// (weights, gradients, optimizer state, activations), computed from shapes and measured as the batch
// grows; why raising the batch, not loading the model, runs out of memory; catching that error
// instead of crashing; and gradient checkpointing, which trades recomputation for memory.
//
// Notebook cells stay thin: they call the functions here. Measurements go through pkg/measure and
// are kept on disk (measure.Keep) for the cells that chart them, because every GoNB cell is a new
// process. Every measurement is registered as an experiment, so `whygpu record` can run it on a GPU.
package memory

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/charts"
	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "06-memory"

// KeepBatch is the name BatchSweep keeps its results under for the chart cell.
const KeepBatch = Lesson + "-batch"

// Result parameters BatchSweep adds to each measure.Result (Params is the only free-form field a
// result has, and it survives Keep, Save and recording).
const (
	ParamMeasured = "measured_bytes"  // memory the process (CPU) or GPU 0 (GPU) grew by during the step
	ParamOnGPU    = "measured_on_gpu" // 1 when ParamMeasured comes from NVML, 0 when from the process's peak RSS
)

func init() {
	experiments.Register(experiments.Experiment{
		Lesson: Lesson, Name: "batch-memory",
		Doc: "Adam MLP training step: memory from shapes vs measured peak, as the batch grows",
		Run: func(dev *devices.Device, s experiments.Scale) ([]measure.Result, error) {
			return BatchSweep(dev, s, nil)
		},
	})
}

// Model is the lesson's network at a batch size: float32, Adam, width×6 hidden layers. The laptop
// scale uses width 256 (≈ 0.4 M parameters), the GPU scale width 2048 (≈ 25 M).
func Model(s experiments.Scale, batch int) workloads.MLP {
	w := experiments.Pick(s, 256, 2048)
	return workloads.MLP{Batch: batch, In: w, Hidden: w, Depth: 6, Out: 16, Type: dtypes.Float32, Optimizer: workloads.Adam}
}

// Batches are the batch sizes the sweep measures at a scale.
func Batches(s experiments.Scale) []int {
	return experiments.Pick(s, []int{64, 512, 2048, 8192}, []int{256, 2048, 16384, 65536})
}

// Row is one line of a memory ledger.
type Row struct {
	Kind     string  // weights, gradients, …
	Bytes    int64   // in bytes
	PerParam float64 // bytes per parameter (0 for the batch-dependent rows)
	Why      string  // what it is
}

// Ledger is the memory of one training step of w, computed from its shapes, one row per kind.
func Ledger(w workloads.MLP) []Row {
	m, n := w.Memory(), float64(w.NumParams())
	per := func(b int64) float64 { return float64(b) / n }
	return []Row{
		{"weights", m.Parameters, per(m.Parameters), fmt.Sprintf("%d parameters × %d bytes (%s)", w.NumParams(), w.ParamType().Size(), w.ParamType())},
		{"gradients", m.Gradients, per(m.Gradients), "one per parameter, same dtype"},
		{"optimizer state", m.OptimizerState, per(m.OptimizerState), "Adam: first and second moment per parameter (SGD: none)"},
		{"activations", m.Activations, 0, fmt.Sprintf("every layer's output for %d samples, kept for the backward pass", w.Batch)},
		{"batch", m.Batch, 0, "the inputs and targets"},
	}
}

// LedgerTable formats Ledger for display.Table: header and rows.
func LedgerTable(w workloads.MLP) units.Table {
	var rows [][]string
	total := w.Memory().Total()
	for _, r := range Ledger(w) {
		per := "—"
		if r.PerParam > 0 {
			per = fmt.Sprintf("%.0f", r.PerParam)
		}
		rows = append(rows, []string{r.Kind, units.BytesFixed(float64(r.Bytes)), per,
			fmt.Sprintf("%.0f%%", 100*float64(r.Bytes)/float64(total)), r.Why})
	}
	rows = append(rows, []string{"total", units.BytesFixed(float64(total)), "", "100%", "computed from shapes (a formula, not a measurement)"})
	return units.Table{Header: []string{"kind", "bytes", "bytes/param", "share", "what it is"}, Rows: rows}
}

// PerParam is a bytes-per-parameter recipe for the model state (activations excluded).
type PerParam struct {
	Recipe string
	Parts  []Part
}

// Part is one component of a PerParam recipe.
type Part struct {
	Name  string
	Bytes int
}

// Total is the recipe's bytes per parameter.
func (p PerParam) Total() int {
	t := 0
	for _, x := range p.Parts {
		t += x.Bytes
	}
	return t
}

// Recipes are the usual bytes-per-parameter budgets of training: plain float32 SGD, float32 Adam,
// and mixed-precision Adam (16-bit weights and gradients for the math, float32 master weights and
// moments), the "about 16 bytes per parameter" of the source text.
var Recipes = []PerParam{
	{"float32, SGD", []Part{{"f32 weights", 4}, {"f32 gradients", 4}}},
	{"float32, Adam", []Part{{"f32 weights", 4}, {"f32 gradients", 4}, {"f32 Adam m", 4}, {"f32 Adam v", 4}}},
	{"mixed precision (bf16/f16), Adam", []Part{{"16-bit weights", 2}, {"16-bit gradients", 2}, {"f32 master weights", 4}, {"f32 Adam m", 4}, {"f32 Adam v", 4}}},
}

// RecipeTable formats Recipes for display.Table, with the state of a model of n parameters.
func RecipeTable(n float64) units.Table {
	var rows [][]string
	for _, r := range Recipes {
		var parts []string
		for _, p := range r.Parts {
			parts = append(parts, fmt.Sprintf("%s %d", p.Name, p.Bytes))
		}
		rows = append(rows, []string{r.Recipe, strings.Join(parts, " + "), strconv.Itoa(r.Total()),
			units.BytesFixed(float64(r.Total()) * n)})
	}
	return units.Table{Header: []string{"recipe", "bytes per parameter", "total", fmt.Sprintf("state of %s parameters (formula)", units.Plain(n))}, Rows: rows}
}

// AdamRatio is optimizer state over weights for w: 2 for Adam ("Adam's state alone is twice the
// model size"), 0 for SGD.
func AdamRatio(w workloads.MLP) float64 {
	m := w.Memory()
	return float64(m.OptimizerState) / float64(m.Parameters)
}

// MeasureBatch times a few training steps of w on dev and measures the peak memory they needed:
// on a GPU the rise of GPU 0's memory in use (NVML, sampled every 5 ms), on the CPU devices the rise
// of this process's peak resident set (device buffers are host memory there). The measured bytes
// are in the result's Params[ParamMeasured]. The budget check runs first: a step that cannot fit is
// an error wrapping workloads.ErrOutOfMemory, before anything is allocated.
func MeasureBatch(dev *devices.Device, w workloads.MLP) (measure.Result, error) {
	return measureFrom(dev, w, 0)
}

// measureFrom is MeasureBatch counting growth from base bytes in use (0: from now).
func measureFrom(dev *devices.Device, w workloads.MLP, base uint64) (measure.Result, error) {
	if err := Budget(dev, w); err != nil {
		return measure.Result{}, err
	}
	p := measure.StartPeak(dev.IsGPU(), base)
	r, err := measure.Run(dev, w, measure.Options{Warmup: 1, Reps: 3}, false)
	grew := p.Stop()
	if err != nil {
		return r, err
	}
	if r.Params == nil {
		r.Params = map[string]int{}
	}
	r.Params[ParamMeasured] = int(grew)
	r.Params[ParamOnGPU] = 0
	if dev.IsGPU() {
		r.Params[ParamOnGPU] = 1
	}
	return r, nil
}

// BatchSweep runs MeasureBatch at each of Batches(s), in increasing order, counting every batch's
// peak from the same baseline (allocators keep some of what they got, so a peak measured after a
// smaller batch is still the larger batch's need). A tiny step is compiled and run first and not
// reported, and the baseline is read after it, so that the compiler's own working memory (which
// the allocator keeps for the next compilation) is not charged to the first batch. step, when not
// nil, is told about progress.
func BatchSweep(dev *devices.Device, s experiments.Scale, step func(done, total int, what string)) ([]measure.Result, error) {
	return sweepFrom(dev, s, step, measureFrom)
}

// sweepFrom runs one at each batch size of Batches(s), in increasing order, after a small
// unreported warm-up step, every batch counted from the same baseline read after that step.
func sweepFrom(dev *devices.Device, s experiments.Scale, step func(done, total int, what string),
	one func(*devices.Device, workloads.MLP, uint64) (measure.Result, error)) ([]measure.Result, error) {
	if _, err := measure.Run(dev, Model(s, 8), measure.Options{Warmup: 1, Reps: 1}, false); err != nil {
		return nil, err
	}
	base := measure.InUse(dev.IsGPU())
	bs := Batches(s)
	var out []measure.Result
	for i, b := range bs {
		if step != nil {
			step(i, len(bs), fmt.Sprintf("batch %d on %s", b, dev.Name))
		}
		r, err := one(dev, Model(s, b), base)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// SweepHere runs BatchSweep on the default device (the GPU when there is one) at the current scale,
// adds results recorded on devices this machine lacks, and keeps them for the chart cell.
func SweepHere(step func(done, total int, what string)) ([]measure.Result, error) {
	return sweepHere(BatchSweep, "batch-memory", KeepBatch, step)
}

// sweepHere runs sweep on the default device at the current scale, adds the recordings of
// experiment name for devices not here, and keeps the results under keep.
func sweepHere(sweep func(*devices.Device, experiments.Scale, func(done, total int, what string)) ([]measure.Result, error),
	name, keep string, step func(done, total int, what string)) ([]measure.Result, error) {
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	rs, err := sweep(dev, experiments.CurrentScale(), step)
	if err != nil {
		return rs, err
	}
	if rs, err = experiments.WithRecorded(rs, Lesson, name); err != nil {
		return rs, err
	}
	return rs, measure.Keep(keep, rs)
}

// modelOf rebuilds the MLP a result measured, from its Params.
func modelOf(r measure.Result) workloads.MLP {
	p := r.Params
	return workloads.MLP{Batch: p["batch"], In: p["in"], Hidden: p["hidden"], Depth: p["depth"], Out: p["out"],
		Type: dtypes.Float32, Optimizer: workloads.Adam}
}

// SweepTable formats sweep results: per batch, each part from shapes, the total, and the measured
// peak, with where it was measured.
func SweepTable(rs []measure.Result) units.Table {
	var rows [][]string
	for _, r := range rs {
		m := modelOf(r).Memory()
		src := "process peak RSS"
		if r.Params[ParamOnGPU] == 1 {
			src = "GPU memory (NVML)"
		}
		rows = append(rows, []string{strconv.Itoa(r.Params["batch"]), r.Provenance.Label(),
			units.BytesFixed(float64(m.Parameters + m.Gradients + m.OptimizerState)),
			units.BytesFixed(float64(m.Activations + m.Batch)),
			fmt.Sprintf("%.0f%%", 100*float64(m.Activations+m.Batch)/float64(m.Total())),
			units.BytesFixed(float64(m.Total())),
			units.BytesFixed(float64(r.Params[ParamMeasured])) + " (" + src + ")",
			units.Duration(r.Seconds())})
	}
	return units.Table{Header: []string{"batch", "device", "weights+grads+Adam (shapes)", "activations+batch (shapes)", "activation share",
		"total (shapes)", "measured growth at peak", "step time (median)"}, Rows: rows}
}

// Chart draws the sweep as stacked bars per batch size (computed from shapes) with the measured
// peak as markers, for the results of one device (live ones first).
func Chart(rs []measure.Result) (*plot.Plot, error) {
	if len(rs) == 0 {
		return nil, charts.ErrNoData
	}
	dev := rs[0].Provenance
	where := "live"
	if dev.Recorded {
		where = "recorded"
	}
	mc := charts.MemoryChart{Title: fmt.Sprintf("Adam MLP step: memory by kind vs batch (%s, %s)", dev.Device, where)}
	onGPU := false
	for _, r := range rs {
		if r.Provenance.Device != dev.Device || r.Provenance.Recorded != dev.Recorded {
			continue
		}
		m := modelOf(r).Memory()
		onGPU = r.Params[ParamOnGPU] == 1
		mc.Bars = append(mc.Bars, charts.Memory{Label: fmt.Sprintf("batch %d", r.Params["batch"]),
			Weights: float64(m.Parameters), Gradients: float64(m.Gradients), Optimizer: float64(m.OptimizerState),
			Activations: float64(m.Activations + m.Batch), Measured: float64(r.Params[ParamMeasured])})
	}
	what := "process peak RSS growth"
	if onGPU {
		what = "GPU memory growth (NVML)"
	}
	mc.MeasuredName = fmt.Sprintf("%s — %s", what, charts.Live.Describe(""))
	if dev.Recorded {
		mc.MeasuredName = fmt.Sprintf("%s — %s", what, charts.Recorded.Describe(dev.Model+", "+dev.Date.Format("2006-01-02")))
	}
	return charts.MemoryBars(mc)
}

// Budget checks, from shapes alone, whether one training step of w fits in what dev has available
// now, and refuses before allocating anything: the error wraps workloads.ErrOutOfMemory and says
// how large a batch would fit. It is what a careful training script does before asking the device.
func Budget(dev *devices.Device, w workloads.MLP) error {
	avail := dev.AvailableMemory()
	if avail == 0 {
		return nil // unknown: let the device decide
	}
	need := w.Memory().Total()
	if float64(need) <= workloads.Headroom*float64(avail) {
		return nil
	}
	return fmt.Errorf("%s: one training step needs %s (computed from shapes: %s) but %s has %s available%s — refused before allocating; the largest batch that fits is about %d: %w",
		w, units.BytesFixed(float64(need)), w.Memory(), dev.Name, units.BytesFixed(float64(avail)),
		limitNote(dev), LargestBatch(w, uint64(workloads.Headroom*float64(avail))), workloads.ErrOutOfMemory)
}

// limitNote says which memory limit a CPU device's budget came from (the container's or the host's).
func limitNote(dev *devices.Device) string {
	if dev.IsGPU() {
		return " (free GPU memory, NVML)"
	}
	return " (" + devices.HostMemoryLimit().String() + ")"
}

// Usable is the memory one step may plan to use on dev: workloads.Headroom of what it has
// available now (0 when unknown).
func Usable(dev *devices.Device) uint64 {
	return uint64(workloads.Headroom * float64(dev.AvailableMemory()))
}

// LargestBatch is the largest batch of w whose step fits in budget bytes, from shapes: (budget −
// weights, gradients and optimizer state) ÷ (activations and batch per sample). 0 when not even
// the model state fits.
func LargestBatch(w workloads.MLP, budget uint64) int {
	one := w
	one.Batch = 1
	m := one.Memory()
	fixed := m.Parameters + m.Gradients + m.OptimizerState
	perSample := m.Activations + m.Batch
	if int64(budget) <= fixed || perSample <= 0 {
		return 0
	}
	return int((int64(budget) - fixed) / perSample)
}

// TooLarge returns the lesson's model at a batch about twice as large as what dev has available:
// the step a learner gets by turning the batch up too far.
func TooLarge(dev *devices.Device) workloads.MLP {
	w := Model(experiments.CurrentScale(), 1)
	avail := dev.AvailableMemory()
	if avail == 0 {
		avail = 1 << 40
	}
	per := w.Memory().Activations + w.Memory().Batch
	w.Batch = int(min(2*int64(avail)/per+1, math.MaxInt32))
	return w
}

// TryTooLarge asks for TooLarge(dev)'s training step through the same path as the sweep (Budget
// first): it returns the error, which wraps workloads.ErrOutOfMemory. Nothing is allocated.
func TryTooLarge(dev *devices.Device) (workloads.MLP, error) {
	w := TooLarge(dev)
	_, err := MeasureBatch(dev, w)
	return w, err
}

// GPUOutOfMemory asks a GPU for a buffer twice its memory — a real allocation the device refuses —
// and returns the device's error, wrapped so errors.Is(err, workloads.ErrOutOfMemory) holds. On a
// device that is not a GPU it allocates nothing and says so: on the CPU devices "device memory" is
// the machine's RAM, and asking for too much of it can get the whole kernel killed instead of an
// error, which is why Budget checks first there.
func GPUOutOfMemory(dev *devices.Device) (err error) {
	if !dev.IsGPU() {
		return fmt.Errorf("%s is not a GPU: the real out-of-memory experiment runs only on a GPU (nothing was allocated)", dev.Name)
	}
	total := dev.MemoryBytes
	if total == 0 {
		total = 80 << 30
	}
	const cols = 1 << 20
	rows := int(2 * total / (4 * cols)) // float32: twice the GPU's memory
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("asking %s for %s: %v: %w", dev.Name, units.BytesFixed(float64(rows)*cols*4), r, workloads.ErrOutOfMemory)
		}
	}()
	exec, err := graph.NewExec(dev.Backend(), func(one *graph.Node) *graph.Node {
		return graph.BroadcastToDims(one, rows, cols)
	})
	if err != nil {
		return fmt.Errorf("building the allocation on %s: %w", dev.Name, err)
	}
	defer exec.Finalize()
	outs, err := exec.Exec(float32(1))
	for _, o := range outs {
		_ = o.FinalizeAll()
	}
	if err == nil {
		return fmt.Errorf("%s allocated %s without complaint: nothing to catch", dev.Name, units.BytesFixed(float64(rows)*cols*4))
	}
	if workloads.IsOutOfMemoryMessage(err) {
		return fmt.Errorf("asking %s for %s: %w (%w)", dev.Name, units.BytesFixed(float64(rows)*cols*4), workloads.ErrOutOfMemory, err)
	}
	return fmt.Errorf("asking %s for %s: %w", dev.Name, units.BytesFixed(float64(rows)*cols*4), err)
}

// IsOOM reports whether err is an out-of-memory error (workloads.ErrOutOfMemory).
func IsOOM(err error) bool { return errors.Is(err, workloads.ErrOutOfMemory) }

// SourceResNet50 is the source text's example, as a ledger of its claim (not a measurement): about
// 100 MB of weights and "a few gigabytes" of activations at batch 64.
func SourceResNet50() units.Table {
	return units.Table{Header: []string{"ResNet-50, batch 64", "size", "where the number comes from"}, Rows: [][]string{
		{"weights", "≈ 100 MB", "the source text"},
		{"activations kept for backward", "a few GB", "the source text"},
		{"ratio", "activations ≫ weights (tens of ×)", "follows from the two lines above"},
	}}
}

// Checkpoint is one gradient-checkpointing plan for a chain of layers: keep every k-th layer's
// output in the forward pass and recompute the others, one segment at a time, in the backward pass.
type Checkpoint struct {
	Every      int     // k: a checkpoint every k layers (1: keep everything, no checkpointing)
	Kept       int     // layer outputs held at the peak: ⌈L/k⌉ checkpoints + the k of the segment being recomputed
	Activation int64   // bytes of activations held at the peak
	ExtraFLOPs float64 // recomputation: the forward of every non-checkpoint layer, once more
	StepFLOPs  float64 // the whole step's FLOPs with the recomputation
}

// CheckpointPlans computes the plans for a chain of `layers` equal layers (a width×width matmul each)
// of w's batch and width, for each k in every: memory held at the peak against extra FLOPs. Model,
// not measurement: activations as Memory counts them, FLOPs as 2·B·w² per layer forward and 3×
// that per step.
func CheckpointPlans(w workloads.MLP, layers int, every []int) []Checkpoint {
	perLayer := int64(w.Batch) * int64(w.Hidden) * int64(w.Type.Size())
	fwd := 2 * float64(w.Batch) * float64(w.Hidden) * float64(w.Hidden)
	var out []Checkpoint
	for _, k := range every {
		if k < 1 {
			continue
		}
		c := Checkpoint{Every: k, StepFLOPs: 3 * fwd * float64(layers)}
		if k == 1 {
			c.Kept = layers
		} else {
			segs := (layers + k - 1) / k
			c.Kept = segs + k
			c.ExtraFLOPs = fwd * float64(layers-segs)
		}
		c.Activation = int64(c.Kept) * perLayer
		c.StepFLOPs += c.ExtraFLOPs
		out = append(out, c)
	}
	return out
}

// CheckpointTable formats CheckpointPlans for display.Table.
func CheckpointTable(w workloads.MLP, layers int, every []int) units.Table {
	var rows [][]string
	plans := CheckpointPlans(w, layers, every)
	for _, c := range plans {
		name := fmt.Sprintf("every %d layers", c.Every)
		if c.Every == 1 {
			name = "none (keep every output)"
		}
		rows = append(rows, []string{name, strconv.Itoa(c.Kept), units.BytesFixed(float64(c.Activation)),
			fmt.Sprintf("%.0f%%", 100*float64(c.Activation)/float64(plans[0].Activation)),
			fmt.Sprintf("+%.0f%%", 100*c.ExtraFLOPs/plans[0].StepFLOPs)})
	}
	return units.Table{Header: []string{fmt.Sprintf("checkpoint (%d layers, batch %d, width %d)", layers, w.Batch, w.Hidden),
		"outputs held at peak", "activation memory (model)", "vs none", "extra step FLOPs (model)"}, Rows: rows}
}

// FitRow says how many parameters' training state fits in a GPU memory size at 16 bytes per
// parameter (mixed-precision Adam), before any activations.
type FitRow struct {
	GiB       float64
	MaxParams float64
}

// FitTable formats, for the memory sizes the source's FAQ names (and the datasheet H100/H200), the
// largest model whose mixed-precision Adam state alone would fit: a model, not advice.
func FitTable() units.Table {
	sizes := []struct {
		gb   float64
		note string
	}{{8, "source FAQ: most vision nets at modest batch"}, {24, "source FAQ: comfortable"}, {40, "source FAQ: LLM fine-tuning wants this or more"},
		{80, "H100 SXM (datasheet)"}, {141, "H200 SXM (datasheet)"}}
	bpp := float64(Recipes[2].Total())
	var rows [][]string
	for _, s := range sizes {
		rows = append(rows, []string{fmt.Sprintf("%.0f GB", s.gb), units.Plain(s.gb*1e9/bpp) + " parameters", s.note})
	}
	return units.Table{Header: []string{"GPU memory", fmt.Sprintf("largest model whose state fits at %.0f B/param (formula; activations need room too)", bpp), "where the size comes from"}, Rows: rows}
}

// Slope is how much memory one more sample costs, between the two largest batches of a sweep on
// one device: from shapes (activations and batch per sample) and measured (growth per sample).
func Slope(rs []measure.Result) (shapes, measured float64, ok bool) {
	var live []measure.Result
	for _, r := range rs {
		if len(rs) > 0 && r.Provenance.Device == rs[0].Provenance.Device && r.Provenance.Recorded == rs[0].Provenance.Recorded {
			live = append(live, r)
		}
	}
	if len(live) < 2 {
		return 0, 0, false
	}
	a, b := live[len(live)-2], live[len(live)-1]
	db := float64(b.Params["batch"] - a.Params["batch"])
	if db <= 0 {
		return 0, 0, false
	}
	ma, mb := modelOf(a).Memory(), modelOf(b).Memory()
	shapes = float64(mb.Total()-ma.Total()) / db
	measured = float64(b.Params[ParamMeasured]-a.Params[ParamMeasured]) / db
	return shapes, measured, true
}

// Caught describes an error a cell expected — an out-of-memory refusal — as plain text for the
// learner (an unexpected error should go to display.Error instead).
func Caught(err error) string {
	switch {
	case err == nil:
		return "no error: the step fitted"
	case IsOOM(err):
		return "caught, as a value (errors.Is(err, workloads.ErrOutOfMemory) is true):\n  " + err.Error()
	default:
		return "not run: " + err.Error()
	}
}
