package race

import (
	"fmt"
	"time"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/charts"
	"github.com/gpu-course/whygpu/pkg/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/gpumodel"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// SplitMatMul is a fixed amount of arithmetic done as Calls separate Side×Side float32 matmuls, one
// device call each: the same FLOPs whatever the split, but not the same time. GoMLX compiles once
// per shape; Compile does it before timing, and Run is the Calls calls.
type SplitMatMul struct {
	Side, Calls int
}

// SplitSides are the matmul sizes the budget is split into.
var SplitSides = []int{8, 32, 128, 256}

// SplitBudget is the FLOPs of every split: 2^25, two 256×256 matmuls (2·256³ each) or 32 768 8×8 ones.
const SplitBudget = 1 << 25

// Split returns the split of budget FLOPs into side×side matmuls.
func Split(budget float64, side int) SplitMatMul {
	per := workloads.Square(side, dtypes.Float32).FLOPs()
	return SplitMatMul{Side: side, Calls: max(1, int(budget/per))}
}

func (w SplitMatMul) one() workloads.MatMul { return workloads.Square(w.Side, dtypes.Float32) }

// Name is "matmul-split".
func (w SplitMatMul) Name() string { return "matmul-split" }

// String is e.g. "32768 × matmul 8×8 @ 8×8 float32".
func (w SplitMatMul) String() string { return fmt.Sprintf("%d × %s", w.Calls, w.one()) }

// DType is float32.
func (w SplitMatMul) DType() dtypes.DType { return dtypes.Float32 }

// Params are {"side", "calls"}.
func (w SplitMatMul) Params() map[string]int { return map[string]int{"side": w.Side, "calls": w.Calls} }

// FLOPs is Calls × 2·Side³.
func (w SplitMatMul) FLOPs() float64 { return float64(w.Calls) * w.one().FLOPs() }

// Bytes is Calls × 3·Side²·4: every call reads its two inputs and writes its output.
func (w SplitMatMul) Bytes() float64 { return float64(w.Calls) * w.one().Bytes() }

// Intensity is FLOPs per byte of one call: 2·n³ / (3·4·n²) = n/6. A small matmul uses each number
// it loads only a few times (poor cache reuse), a large one hundreds of times.
func (w SplitMatMul) Intensity() float64 { return w.FLOPs() / w.Bytes() }

// Prepare builds one Side×Side matmul on dev.
func (w SplitMatMul) Prepare(dev *devices.Device) (workloads.Instance, error) {
	if w.Side <= 0 || w.Calls <= 0 {
		return nil, fmt.Errorf("race: a split matmul needs a positive side and call count, got %d and %d", w.Side, w.Calls)
	}
	inst, err := w.one().Prepare(dev)
	if err != nil {
		return nil, err
	}
	return &splitInstance{inst: inst, calls: w.Calls}, nil
}

type splitInstance struct {
	inst  workloads.Instance
	calls int
}

func (s *splitInstance) Check() (float64, error) { return s.inst.Check() }
func (s *splitInstance) Close()                  { s.inst.Close() }

// Compile compiles the matmul for its shape and returns how long that took; then, untimed, it runs
// the matmul a few times on its own to warm it up (a whole split of small calls takes seconds, so
// warming up with a whole split would double the cell's time for nothing).
func (s *splitInstance) Compile() (time.Duration, error) {
	d, err := s.inst.Compile()
	if err != nil {
		return d, err
	}
	for range 3 {
		if err := s.inst.Run(); err != nil {
			return d, err
		}
	}
	return d, nil
}

// Run is the calls, one after another; each returns when the device has finished.
func (s *splitInstance) Run() error {
	for range s.calls {
		if err := s.inst.Run(); err != nil {
			return err
		}
	}
	return nil
}

// SplitTiming times a whole split (all its calls) once per sample, three samples; the warm-up is
// three single calls, made by the instance's Compile.
var SplitTiming = measure.Options{Warmup: -1, Reps: 3}

// SmallVsLargeOn times the budget split into each side on dev, checking one matmul of each size
// against float64 first.
func SmallVsLargeOn(dev *devices.Device, budget float64, sides []int, progress experiments.Progress) ([]measure.Result, error) {
	var out []measure.Result
	for i, side := range sides {
		w := Split(budget, side)
		progress.Report(i, len(sides), "%s: %s", dev.Name, w)
		r, err := measure.Run(dev, w, SplitTiming, true)
		if err != nil {
			return out, err
		}
		if !r.Correct() {
			return out, fmt.Errorf("%s: %s on %s gave a wrong result (relative error %.2g)", Lesson, w, dev.Name, r.RelErr)
		}
		out = append(out, r)
	}
	return out, nil
}

// SmallVsLargeKeep is the name SmallVsLarge keeps its results under.
const SmallVsLargeKeep = Lesson + "-small-vs-large"

// SmallVsLarge runs the split live on every device here — the XLA devices and GoMLX's pure-Go
// backend, whose calls skip XLA's runtime — adds recorded results of devices not here, and keeps
// them for the chart.
func SmallVsLarge(progress experiments.Progress) ([]measure.Result, error) {
	devs, err := devices.OpenAll()
	if len(devs) == 0 {
		return nil, err
	}
	var out []measure.Result
	for _, d := range devs {
		rs, err := SmallVsLargeOn(d, SplitBudget, SplitSides, progress)
		if err != nil {
			return out, measure.KeepOr(SmallVsLargeKeep, out, err)
		}
		out = append(out, rs...)
	}
	out, err = experiments.WithRecorded(out, Lesson, SmallLargeName)
	return out, measure.KeepOr(SmallVsLargeKeep, out, err)
}

// SplitTable shows each split: calls, total FLOPs, time for the budget, relative to the largest
// matmuls, time per call, achieved GFLOP/s and the intensity of one call.
func SplitTable(results []measure.Result) units.Table {
	t := units.Table{Header: []string{"device", "source", "shape", "calls", "total FLOPs", "time for the budget", "relative", "per call", "GFLOP/s", "FLOPs per byte (n/6, formula)", "compile (not timed)"}}
	best := map[string]float64{}
	for _, r := range results {
		k := key(r)
		if b, ok := best[k]; !ok || r.Seconds() < b {
			best[k] = r.Seconds()
		}
	}
	for _, r := range results {
		side, calls := r.Params["side"], r.Params["calls"]
		t.AddMeasured(measure.WhyDisturbed(r),
			r.Provenance.Device, sourceText(r.Provenance),
			fmt.Sprintf("%d×%d", side, side), fmt.Sprint(calls), fmt.Sprintf("%.2e", r.FLOPs),
			units.Duration(r.Seconds()), fmt.Sprintf("%.1f×", r.Seconds()/best[key(r)]),
			units.Duration(r.Seconds()/float64(max(calls, 1))),
			fmt.Sprintf("%.2f", r.GFLOPS()), fmt.Sprintf("%.1f", r.Intensity()),
			units.Duration(r.Compile.Seconds()),
		)
	}
	t.Notes = []string{
		"Times are medians of 3 runs of the whole budget, after a warm-up; compilation is done first and timed apart (GoMLX compiles once per shape).",
		"relative: this split's time over the fastest split on the same device. Same FLOPs in every row: the difference is per-call overhead and cache reuse.",
	}
	t.Notes = append(t.Notes, fixedCostNotes(results)...)
	if !experiments.HasGPU(results) {
		e8 := gpumodel.EstimateMatMul(workloads.Square(8, dtypes.Float32))
		t.Notes = append(t.Notes, fmt.Sprintf("No GPU here and none recorded yet: the chart adds the course's GPU model as a band (%s per call for an 8×8, of which the arithmetic is %s; the rest is starting the kernel and waiting for it). %s",
			e8.Band(), units.Duration(max(e8.Compute[0], e8.Memory[0])), e8.Note()))
	}
	return t
}

// fixedCostNotes say what one call of the smallest split costs the runtime, measured here: at 8×8 the
// arithmetic is a rounding error, so the time per call is the software's fixed cost. When `make bench`
// has run on this machine, they add JAX's cost for the same call on the same CPU, from the bench's saved
// report (with its date and host: a recording, not a live number).
func fixedCostNotes(results []measure.Result) []string {
	var small *measure.Result
	for i, r := range results {
		if r.Provenance.Device == devices.CPU && !r.Provenance.Recorded && (small == nil || r.Params["side"] < small.Params["side"]) {
			small = &results[i]
		}
	}
	if small == nil || small.Params["calls"] == 0 {
		return nil
	}
	side := small.Params["side"]
	per := small.Seconds() / float64(small.Params["calls"])
	flops := small.FLOPs / float64(small.Params["calls"])
	note := fmt.Sprintf("The runtime's fixed cost per call, measured here: one %d×%d call on xla:cpu takes %s, waited for; its %.0f FLOPs", side, side, units.Duration(per), flops)
	if small.PeakFLOPS > 0 {
		note += fmt.Sprintf(" would take %s at this CPU's peak", units.Duration(flops/small.PeakFLOPS))
	}
	notes := []string{note + ", so nearly all of it is software: GoMLX's call path, go-xla, the PJRT plugin's dispatch."}
	rep, err := measure.LoadBench()
	if err != nil {
		return append(notes, "Run `make bench` to compare with JAX's cost for the same call on this CPU (this note then quotes it).")
	}
	params := map[string]int{"n": side}
	j, ok := rep.Find("matmul", params, measure.BenchJAX)
	x, okx := rep.Find("matmul", params, devices.CPU)
	if !ok || !okx {
		return notes
	}
	line := fmt.Sprintf("JAX %s on the same CPU (%s): %s per %d×%d call waited for, against %s for GoMLX in the same run (%.1f×)",
		rep.JAX, rep.Label(), units.Duration(j.Value), side, side, units.Duration(x.Value), x.Value/j.Value)
	if p, ok := rep.Find("matmul", params, measure.BenchJAXPipelined); ok {
		line += fmt.Sprintf("; %s per call when JAX does not wait between calls (asynchronous dispatch)", units.Duration(p.Value))
	}
	return append(notes, line+". Overhead is software too: another runtime pays a different price for the same call.")
}

// SplitChart draws the time for the budget against the matmul size, a line per device (log–log),
// with the datasheet model for the GPU when no GPU result exists.
func SplitChart(results []measure.Result) (*plot.Plot, error) {
	series := fromresult.Series(results, func(r measure.Result) float64 { return float64(r.Params["side"]) }, measure.Result.Seconds)
	if !experiments.HasGPU(results) {
		m := charts.Series{Name: experiments.StepModelName, Source: charts.Model}
		for _, side := range SplitSides {
			w := Split(SplitBudget, side)
			e := gpumodel.EstimateMatMul(w.one())
			n := float64(w.Calls)
			m.Points = append(m.Points, charts.XY{X: float64(side), Y: n * e.Mid().Seconds(), Lo: n * e.Low.Seconds(), Hi: n * e.High.Seconds()})
			m.Note = "one call after another; " + e.Note()
		}
		series = append(series, m)
	}
	return charts.Lines(charts.Axes{
		Title: fmt.Sprintf("The same %.2g FLOPs as n×n float32 matmuls: time for all of them", float64(SplitBudget)),
		X:     "matrix side n (calls = budget / 2n³)", Y: "time for the whole budget [s]",
		LogX: true, LogY: true, XTicks: charts.Pow2Ticks{}, YTicks: charts.LogTicks{Format: units.Duration},
	}, series...)
}

// SliverBatches are the two batches of the sliver comparison: one sample, and 256.
var SliverBatches = []int{1, 256}

// SliverWidth is the layer's width: (B×512) @ (512×512).
const SliverWidth = 512

// SliverSizes is the sliver comparison a learner writes in a cell: a layer's width and the batches
// to push through it, (B×Width) @ (Width×Width) for each batch B. The lesson's sizes are
// DefaultSliver: width 512, batches 1 and 256.
type SliverSizes struct {
	Width   int   // the layer's width (inputs and outputs)
	Batches []int // the batches to time, in order; the table compares the first with the last
}

// DefaultSliver is the lesson's comparison (what `whygpu record` records).
func DefaultSliver() SliverSizes { return SliverSizes{Width: SliverWidth, Batches: SliverBatches} }

// Limits of SliverSizes, checked before anything is compiled or allocated.
const (
	MaxSliverWidth   = 4096
	MaxSliverBatch   = 65536
	MaxSliverBatches = 8
	MaxSliverFLOPs   = 1e11 // one call: seconds on a laptop CPU, and it is timed several times
)

// Validate says why a sliver comparison is refused: no batches or too many, a width or batch out
// of range, or a call too large to time in seconds.
func (s SliverSizes) Validate() error {
	if s.Width < 1 || s.Width > MaxSliverWidth {
		return fmt.Errorf("%s: width %d refused before anything is allocated: use 1…%d", Lesson, s.Width, MaxSliverWidth)
	}
	if err := experiments.CheckPoints(Lesson, "batch", len(s.Batches), MaxSliverBatches); err != nil {
		return err
	}
	for _, b := range s.Batches {
		if b < 1 || b > MaxSliverBatch {
			return fmt.Errorf("%s: batch %d refused before anything is allocated: use 1…%d", Lesson, b, MaxSliverBatch)
		}
		if f := 2 * float64(b) * float64(s.Width) * float64(s.Width); f > MaxSliverFLOPs {
			return fmt.Errorf("%s: batch %d at width %d is %.3g FLOPs a call, refused before anything is allocated: at most %.3g keep it in seconds (lower the batch or the width)", Lesson, b, s.Width, f, float64(MaxSliverFLOPs))
		}
	}
	return nil
}

// SliverOn times (B×Width) @ (Width×Width) on dev for each of s's batches (s is not validated
// here: Sliver does that).
func SliverOn(dev *devices.Device, s SliverSizes) ([]measure.Result, error) {
	var out []measure.Result
	for _, b := range s.Batches {
		w := workloads.MatMul{M: b, K: s.Width, N: s.Width, Type: dtypes.Float32, Seed: 1}
		r, err := measure.Run(dev, w, experiments.StepTiming, true)
		if err != nil {
			return out, err
		}
		if !r.Correct() {
			return out, fmt.Errorf("%s: %s on %s gave a wrong result (relative error %.2g)", Lesson, w, dev.Name, r.RelErr)
		}
		out = append(out, r)
	}
	return out, nil
}

// Sliver times the learner's batches through a Width×Width layer on every XLA device here, and
// adds recorded results for devices not here (at the sizes they were recorded at, DefaultSliver).
func Sliver(s SliverSizes) ([]measure.Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	out, err := experiments.LiveOnEachDevice(func(d *devices.Device) ([]measure.Result, error) { return SliverOn(d, s) })
	if err != nil {
		return out, err
	}
	return experiments.WithRecorded(out, Lesson, SliverName)
}

// SliverTable compares the batches on each device: the last batch's work over the first's (the
// batches' ratio, the width being the same), how much more time. Without a GPU result it adds the datasheet model's rows at the live results'
// sizes; its notes say how much of the datasheet GPU's FP32 lanes each batch could occupy.
func SliverTable(results []measure.Result) units.Table {
	t := units.Table{Header: []string{"device", "source", "work", "FLOPs", "outputs (independent dot products)", "time"}}
	byDev := map[string][]measure.Result{}
	var order []string
	for _, r := range results {
		k := key(r)
		if _, ok := byDev[k]; !ok {
			order = append(order, k)
		}
		byDev[k] = append(byDev[k], r)
		t.AddMeasured(measure.WhyDisturbed(r), r.Provenance.Device, sourceText(r.Provenance), r.Label, fmt.Sprintf("%.3g", r.FLOPs),
			fmt.Sprint(r.Params["m"]*r.Params["n"]), units.Duration(r.Seconds()))
	}
	for _, k := range order {
		if rs := byDev[k]; len(rs) >= 2 {
			first, last := rs[0], rs[len(rs)-1]
			t.Notes = append(t.Notes, fmt.Sprintf("%s (%s): %.3g× the work takes %.1f× the time.",
				first.Provenance.Device, sourceText(first.Provenance), float64(last.Params["m"])/float64(first.Params["m"]), last.Seconds()/first.Seconds()))
		}
	}
	if !experiments.HasGPU(results) && len(order) > 0 {
		var es []gpumodel.Estimate
		var ws []workloads.MatMul
		for _, r := range byDev[order[0]] {
			w := workloads.MatMul{M: r.Params["m"], K: r.Params["k"], N: r.Params["n"], Type: dtypes.Float32}
			if w.K == 0 {
				w.K = w.N
			}
			e := gpumodel.EstimateMatMul(w)
			es, ws = append(es, e), append(ws, w)
			t.Rows = append(t.Rows, []string{experiments.StepModelName, "model band (" + e.Note() + ")", w.String(), fmt.Sprintf("%.3g", w.FLOPs()),
				fmt.Sprint(w.M * w.N), e.Band()})
		}
		if len(es) >= 2 {
			e0, e1, w0, w1 := es[0], es[len(es)-1], ws[0], ws[len(ws)-1]
			r1, r2 := e1.Low.Seconds()/e0.Low.Seconds(), e1.High.Seconds()/e0.High.Seconds()
			bound := fmt.Sprintf("the first is %s, the last %s", e0.Bound, e1.Bound)
			if e0.Bound == e1.Bound {
				bound = "both are " + e1.Bound
			}
			if e1.Bound == "launch-bound" {
				bound += ": the GPU waits on starting its kernel, not on arithmetic"
			}
			tiles := fmt.Sprintf("%d samples of %d outputs are %d output tiles of 128×128", w1.M, w1.N, e1.Tiles)
			if e1.Waves <= 1 {
				tiles += fmt.Sprintf(", so a GPU can take %d samples in one pass where a batch of %d leaves most of its %d SMs idle", w1.M, w0.M, GPU.GPU.SMs)
			} else {
				tiles += fmt.Sprintf(", %d waves over its %d SMs", e1.Waves, GPU.GPU.SMs)
			}
			t.Notes = append(t.Notes, fmt.Sprintf("%s, a model band and not a measurement: %.3g× the work takes %.2f–%.2f× the time (%s, then %s); %s. %s.",
				experiments.StepModelName, w1.FLOPs()/w0.FLOPs(), min(r1, r2), max(r1, r2), e0.Band(), e1.Band(), bound, tiles))
		}
	}
	return t
}

// key identifies a result's series: device and provenance.
func key(r measure.Result) string {
	src, note := fromresult.Source(r.Provenance)
	return r.Provenance.Device + "\x00" + src.String() + "\x00" + note
}

// sourceText is "measured live" or "recorded on NVIDIA H200 (139 GiB), 2026-11-30".
func sourceText(p measure.Provenance) string {
	src, note := fromresult.Source(p)
	return src.Describe(note)
}
