package race

import (
	"fmt"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Lesson 01's opening measurement: what limits a step's time? One graph whose FLOPs and bytes can
// be doubled separately (workloads.BudgetMix: a chain of matrix products that stays in cache, beside
// a copy), in two shapes — one heavy in bytes, one heavy in FLOPs — each timed as it is, with twice
// the FLOPs at the same bytes, and with twice the bytes at the same FLOPs. Whichever doubling moved
// the time names the regime; the time budget (pkg/model/regime) says the same with numbers.

// KeepHook is the name the hook keeps its results under; HookName the experiment's.
const (
	KeepHook = Lesson + "-hook"
	HookName = "flops-or-bytes"
)

// Names of a hook result's parameters (results.Result.Params).
const (
	ParamShape  = "shape"  // 0: heavy in bytes, 1: heavy in FLOPs
	ParamChange = "change" // 0: as it is, 1: twice the FLOPs, 2: twice the bytes
)

// Hook is the two shapes the opening cell times.
type Hook struct {
	Bytes, FLOPs workloads.BudgetMix // heavy in bytes; heavy in FLOPs
}

// DefaultHook takes a few seconds on a 2-core machine (ceilings kept): 2 products of 256×256 beside
// 32 passes over 64 MiB (twice a 32 MiB L3, so the sweeps reach main memory), and 8 products of
// 512×512 beside one pass over 1 MiB (5–6 ms: with 4, 3 ms, its doubling ratios swung from 1.2 to 3.5
// on a shared VM). Thirty-two passes, because an execution pays a fixed cost for its fresh 64 MiB
// loop array (measured on a 2-core EPYC, quiet, 2026-12-04: 24, 30, 35, 45, 76 ms for 1, 2, 4, 8, 16
// passes, about 20 ms at zero, ~15 ms of it the first touch of those pages): with 2 passes that cost
// was two thirds of the time and the byte-heavy graph read as overhead-bound; with 8, twice the bytes
// took only 1.3–1.5× the time; with 16 the bytes explained 49–66% of it, too near the rule's half.
func DefaultHook() Hook {
	return Hook{
		Bytes: workloads.BudgetMix{Side: 256, Chain: 2, N: 16 << 20, Passes: 32, Type: dtypes.Float32, Seed: 1},
		FLOPs: workloads.BudgetMix{Side: 512, Chain: 8, N: 256 << 10, Type: dtypes.Float32, Seed: 2},
	}
}

// MaxHookBytes bounds the memory a shape's doubled graph holds (2 GiB), MaxHookPasses its passes.
const (
	MaxHookBytes  = 1 << 31
	MaxHookPasses = 64
)

// Validate refuses shapes that are invalid or too large, before anything is allocated.
func (h Hook) Validate() error {
	for _, w := range []workloads.BudgetMix{h.Bytes, h.FLOPs} {
		if err := w.Validate(); err != nil {
			return err
		}
		if d := w.BytesDoubled(); heldBytes(d) > MaxHookBytes || d.Passes > MaxHookPasses || w.Side > 2048 || w.Chain > 64 {
			return fmt.Errorf("%s: %s is too large for this cell (at most 2 GiB held and %d passes doubled, side 2048, 64 products)", Lesson, w, MaxHookPasses)
		}
	}
	return nil
}

// heldBytes is the memory a budget-mix graph holds: its three matrices, its array and the loop's copy.
func heldBytes(w workloads.BudgetMix) float64 {
	return float64(3*w.Side*w.Side+2*w.N) * float64(w.Type.Size())
}

// Workloads are the six timed graphs, in order: each shape as it is, with twice the FLOPs, with twice
// the bytes.
func (h Hook) Workloads() []workloads.BudgetMix {
	var out []workloads.BudgetMix
	for _, w := range []workloads.BudgetMix{h.Bytes, h.FLOPs} {
		out = append(out, w, w.FLOPsDoubled(), w.BytesDoubled())
	}
	return out
}

// HookTiming is how the hook times each graph: compiled and checked first, warmed up, median of 7.
var HookTiming = measure.Options{Warmup: 2, Reps: 7, SampleTime: 2e6}

// MeasureHook times h on dev after its ceilings (which the budgets use).
func MeasureHook(dev *devices.Device, h Hook, progress func(done, total int)) ([]results.Result, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if _, err := measure.MeasureCeilings(dev); err != nil {
		return nil, err
	}
	ws := h.Workloads()
	var out []results.Result
	for i, w := range ws {
		r, err := measure.Run(dev, w, HookTiming, false)
		if err != nil {
			return out, err
		}
		if r.Params == nil {
			r.Params = map[string]int{}
		}
		r.Params[ParamShape], r.Params[ParamChange] = i/3, i%3
		out = append(out, r)
		if progress != nil {
			progress(i+1, len(ws))
		}
	}
	return out, nil
}

var hookExperiments = experiments.List{{
	Lesson: Lesson, Name: HookName,
	Doc: "what limits the time: a byte-heavy and a FLOP-heavy graph, each as it is, with twice the FLOPs and with twice the bytes",
	Run: func(dev *devices.Device, _ experiments.Scale) ([]results.Result, error) {
		return MeasureHook(dev, DefaultHook(), nil)
	},
}}

// HookHere times the cell's shapes on xla:cpu (the course's live device everywhere) and keeps them.
func HookHere(h Hook, progress func(done, total int)) ([]results.Result, error) {
	if err := h.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return nil, err
	}
	rs, err := MeasureHook(dev, h, progress)
	return rs, results.KeepOr(KeepHook, rs, err)
}

var changeNames = [...]string{"as it is", "2× FLOPs, same bytes", "2× bytes, same FLOPs"}

// HookTable shows each graph: its FLOPs and bytes, its time and the ratio to the shape's own time,
// then the two budgets and the verdict.
func HookTable(rs []results.Result) units.Table {
	t := units.Table{Header: []string{"graph", "change", "FLOPs", "bytes", "time (median)", "× its base", "T_compute", "T_memory", "verdict"},
		Origins: results.Origins(rs)}
	base := map[int]float64{}
	for _, r := range rs {
		shape, change := r.Params[ParamShape], r.Params[ParamChange]
		if change == 0 {
			base[shape] = r.Seconds()
		}
		ratio := "—"
		if b := base[shape]; change > 0 && b > 0 {
			ratio = fmt.Sprintf("%.2f×", r.Seconds()/b)
		}
		v := regime.Of(r).Classify()
		name := [...]string{"heavy in bytes", "heavy in FLOPs"}[shape%2]
		t.Rows = append(t.Rows, []string{name, changeNames[change%3], units.SI(r.FLOPs, "FLOP"), units.Bytes(r.Bytes),
			units.Duration(v.TMeasured), ratio, units.Duration(v.TCompute), units.Duration(v.TMemory), v.Regime})
		t.Disturbed = append(t.Disturbed, results.WhyDisturbed(r))
	}
	t.Notes = []string{"T_compute = FLOPs ÷ the matmul ceiling measured here; T_memory = bytes ÷ the copy bandwidth measured here. " + regime.Rule}
	return t
}

// HookMoves says, per shape, which doubling moved the time: the regime read off the measurement.
func HookMoves(rs []results.Result) string {
	var s string
	for shape, name := range []string{"Heavy in bytes", "Heavy in FLOPs"} {
		var t [3]float64
		var base results.Result
		disturbed := false
		for _, r := range rs {
			if r.Params[ParamShape] == shape {
				t[r.Params[ParamChange]%3] = r.Seconds()
				if r.Params[ParamChange] == 0 {
					base = r
				}
				disturbed = disturbed || results.WhyDisturbed(r) != ""
			}
		}
		if t[0] == 0 || t[1] == 0 || t[2] == 0 {
			continue
		}
		if disturbed {
			// Other programs took the CPU during some of its graphs: their ratios measure the neighbours.
			s += fmt.Sprintf("%s: no reading — other programs ran beside some of its graphs (⚠ in the table), so their ratios measure the neighbours as much as the graph; rerun the cell when the machine is quiet.\n", name)
			continue
		}
		f, b := t[1]/t[0], t[2]/t[0]
		if min(f, b) < FasterThanBase {
			// Twice the work cannot take less time: the base run was slowed by something else.
			s += fmt.Sprintf("%s: no reading — twice the work took %.2f× the time of the graph as it is, which twice the work cannot do: the base run was slowed by something the probe did not see; rerun the cell.\n", name, min(f, b))
			continue
		}
		moved := "the bytes moved the time more: the bytes set it"
		if f > b {
			moved = "the FLOPs moved the time more: the arithmetic sets it"
		}
		if f < 1.3 && b < 1.3 {
			moved = "neither moved it much: fixed costs set it"
		}
		s += fmt.Sprintf("%s: twice the FLOPs took %.2f× the time, twice the bytes %.2f× — %s. Budget: %s.\n", name, f, b, moved, regime.Of(base).Classify())
	}
	if s == "" {
		return "Nothing measured yet: run the measuring cell above first.\n"
	}
	if r := rs[0]; r.CeilingFLOPS > 0 {
		s += fmt.Sprintf("This CPU's ceilings, measured here: %s (large matmuls), %s (copy passes beyond the caches: the bytes that doubling the passes adds, over the time it adds).\n",
			units.SI(r.CeilingFLOPS, "FLOP/s"), units.SI(r.CeilingBytesPerSec, "B/s"))
	}
	return s
}

// FasterThanBase is the least time ratio a doubled graph may show against its base before HookMoves
// refuses to read the shape: twice the work in under 0.8× the time means the base was slowed.
const FasterThanBase = 0.8

// hookRatio is the time ratio of a shape's change to its base, from the kept live xla:cpu results.
func hookRatio(shape, change int) (float64, error) {
	rs, err := predict.Kept(KeepHook, devices.CPU)
	if err != nil {
		return 0, err
	}
	var t0, t1 float64
	for _, r := range rs {
		if r.Params[ParamShape] == shape {
			switch r.Params[ParamChange] {
			case 0:
				t0 = r.Seconds()
			case change:
				t1 = r.Seconds()
			}
		}
	}
	if t0 == 0 || t1 == 0 {
		return 0, fmt.Errorf("%s: the hook kept no such graph on %s: run the measuring cell first", Lesson, devices.CPU)
	}
	return t1 / t0, nil
}

// Predictions of the opening measurement.
var (
	// PredictHookFLOPs: the byte-heavy graph with twice the FLOPs.
	PredictHookFLOPs = predict.Question{
		Key:    "01/hook-flops-on-bytes",
		Text:   "The graph heavy in bytes, run with twice the FLOPs at the same bytes: how many times its time will it take on xla:cpu? (a factor)",
		Unit:   "×",
		Answer: func() (float64, error) { return hookRatio(0, 1) },
		Why:    "Its time goes to moving bytes; the extra arithmetic fits in the time the bytes take. A flat time here means memory-bandwidth-bound, not overhead-bound.",
	}
	// PredictDecodeBudgets: the GPU question, answered by the datasheet (a model, not a measurement).
	PredictDecodeBudgets = predict.Question{
		Key:   "01/h200-decode-budgets",
		Model: "datasheet",
		Text: "GPU (answered by the H200 datasheet, a model): a 7-billion-parameter model in bfloat16 generates one token at batch 1 on an H200 — every weight read once, 2 FLOPs per weight. " +
			"How many times larger is T_memory than T_compute? (a factor)",
		Unit:   "×",
		Answer: func() (float64, error) { return DecodeBudgets().TMemory / DecodeBudgets().TCompute, nil },
		Why: "Model, not measured: T_memory = 14 GB ÷ 4.8 TB/s ≈ 2.9 ms; T_compute = 14 GFLOP ÷ 989 TFLOP/s ≈ 0.014 ms: about 200× (the H200's ridge, since the intensity is 1 FLOP/byte). " +
			"Batch-1 decoding of a real model is memory-bandwidth-bound; only a toy model is small enough for fixed costs to dominate.",
	}
)

// DecodeBudgets is the budget of one batch-1 decoding step of a 7B bfloat16 model on an H200, from
// its datasheet (a model: both ceilings are peaks, the time is the larger budget).
func DecodeBudgets() regime.Verdict {
	g := datasheet.H200
	const params = 7e9
	b := regime.Budget{FLOPs: 2 * params, Bytes: 2 * params, CeilingFLOPS: g.Peak("bfloat16"), CeilingBytesPerSec: g.Bandwidth()}
	b.Measured = time.Duration(b.Bytes / b.CeilingBytesPerSec * float64(time.Second))
	return b.Classify()
}
