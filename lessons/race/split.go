package race

import (
	"fmt"
	"math"
	"time"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/bench"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
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
func SmallVsLargeOn(dev *devices.Device, budget float64, sides []int, progress experiments.Progress) ([]results.Result, error) {
	var out []results.Result
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
func SmallVsLarge(progress experiments.Progress) ([]results.Result, error) {
	devs, err := devices.OpenAll()
	if len(devs) == 0 {
		return nil, err
	}
	var out []results.Result
	for _, d := range devs {
		rs, err := SmallVsLargeOn(d, SplitBudget, SplitSides, progress)
		if err != nil {
			return out, results.KeepOr(SmallVsLargeKeep, out, err)
		}
		out = append(out, rs...)
	}
	out, err = experiments.WithRecorded(out, Lesson, SmallLargeName)
	return out, results.KeepOr(SmallVsLargeKeep, out, err)
}

// SplitTable shows each split: calls, total FLOPs, time for the budget, relative to the largest
// matmuls, time per call, achieved GFLOP/s and the intensity of one call.
func SplitTable(rs []results.Result) units.Table {
	t := units.Table{Origins: results.Origins(rs), Header: []string{"device", "source", "shape", "calls", "total FLOPs", "time for the budget", "relative", "per call", "GFLOP/s", "FLOPs per byte (n/6, formula)", "compile (not timed)"}}
	best := map[string]float64{}
	for _, r := range rs {
		k := key(r)
		if b, ok := best[k]; !ok || r.Seconds() < b {
			best[k] = r.Seconds()
		}
	}
	for _, r := range rs {
		side, calls := r.Params["side"], r.Params["calls"]
		t.AddMeasured(results.WhyDisturbed(r),
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
	t.Notes = append(t.Notes, fixedCostNotes(rs)...)
	if n := perCallNote(rs); n != "" {
		t.Notes = append(t.Notes, n)
	}
	if !experiments.HasGPU(rs) {
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
func fixedCostNotes(rs []results.Result) []string {
	var small *results.Result
	for i, r := range rs {
		if r.Provenance.Device == devices.CPU && !r.Provenance.Recorded && (small == nil || r.Params["side"] < small.Params["side"]) {
			small = &rs[i]
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
	rep, err := bench.Latest()
	if err != nil {
		return append(notes, "Run `make bench` to compare with JAX's cost for the same call on this CPU (this note then quotes it).")
	}
	params := map[string]int{"n": side}
	j, ok := rep.Find("matmul", params, bench.JAX)
	x, okx := rep.Find("matmul", params, devices.CPU)
	if !ok || !okx {
		return notes
	}
	line := fmt.Sprintf("JAX %s on the same CPU (%s): %s per %d×%d call waited for, against %s for GoMLX in the same run (%.1f×)",
		rep.JAX, rep.Label(), units.Duration(j.Value), side, side, units.Duration(x.Value), x.Value/j.Value)
	if p, ok := rep.Find("matmul", params, bench.JAXPipelined); ok {
		line += fmt.Sprintf("; %s per call when JAX does not wait between calls (asynchronous dispatch)", units.Duration(p.Value))
	}
	return append(notes, line+". Overhead is software too: another runtime pays a different price for the same call.")
}

// sameCall is how close two per-call costs are to count as about the same (timing noise on a busy
// machine is larger than that).
const sameCall = 0.1

// perCallNote compares the pure-Go backend with xla:cpu from the live rows: which pays more per call
// at the smallest split, how fast each runs its fastest split, and so where go's spread (relative) comes
// from. "" without both devices' smallest and fastest split.
func perCallNote(rs []results.Result) string {
	type ends struct{ small, large *results.Result }
	at := map[string]*ends{}
	for i, r := range rs {
		d := r.Provenance.Device
		if r.Provenance.Recorded || (d != devices.CPU && d != devices.Go) || r.Params["calls"] == 0 {
			continue
		}
		e := at[d]
		if e == nil {
			e = &ends{}
			at[d] = e
		}
		if e.small == nil || r.Params["side"] < e.small.Params["side"] {
			e.small = &rs[i]
		}
		if e.large == nil || r.Seconds() < e.large.Seconds() { // the fastest split: what "relative" divides by
			e.large = &rs[i]
		}
	}
	g, x := at[devices.Go], at[devices.CPU]
	if g == nil || x == nil || g.small == g.large || x.small == x.large || g.small.Params["side"] != x.small.Params["side"] {
		return ""
	}
	perCall := func(r *results.Result) float64 { return r.Seconds() / float64(r.Params["calls"]) }
	spread := func(e *ends) float64 { return e.small.Seconds() / e.large.Seconds() }
	pg, px := perCall(g.small), perCall(x.small)
	pays := fmt.Sprintf("%s pays %.2g× more per call", devices.Go, pg/px)
	switch {
	case math.Abs(pg/px-1) < sameCall:
		pays = "about the same per call"
	case pg < px:
		pays = fmt.Sprintf("%s pays %.2g× less per call", devices.Go, px/pg)
	}
	side := g.small.Params["side"]
	note := fmt.Sprintf("Measured here: one %d×%d call costs %s on %s against %s on %s (%s); the fastest split runs at %.3g GFLOP/s on %s against %.3g on %s.",
		side, side, units.Duration(pg), devices.Go, units.Duration(px), devices.CPU, pays,
		g.large.GFLOPS(), devices.Go, x.large.GFLOPS(), devices.CPU)
	if spread(g) >= spread(x) {
		return note
	}
	// go's spread ÷ xla:cpu's = (its per-call cost ratio) × (xla:cpu's fastest-split time ÷ go's): say
	// which factor makes go's spread smaller.
	calls, large := px/pg, g.large.Seconds()/x.large.Seconds()
	var why string
	switch {
	case calls >= large:
		why = fmt.Sprintf("mostly because its calls are cheaper (%.2g×; its fastest split is %.3g× slower)", calls, large)
	case math.Abs(calls-1) < sameCall:
		why = fmt.Sprintf("because its fastest split is %.3g× slower; the calls cost about the same", large)
	case calls >= 1:
		why = fmt.Sprintf("mostly because its fastest split is %.3g× slower; its calls are only %.2g× cheaper", large, calls)
	default:
		why = fmt.Sprintf("because its fastest split is %.3g× slower, not because its calls are cheap (they cost %.2g× more)", large, 1/calls)
	}
	return note + fmt.Sprintf(" %s's spread (relative) is %.0f× smaller than %s's, %s.", devices.Go, spread(x)/spread(g), devices.CPU, why)
}

// SplitChart draws the time for the budget against the matmul size, a line per device (log–log),
// with the datasheet model for the GPU when no GPU result exists.
func SplitChart(rs []results.Result) (*plot.Plot, error) {
	series := fromresult.Series(rs, func(r results.Result) float64 { return float64(r.Params["side"]) }, results.Result.Seconds)
	if !experiments.HasGPU(rs) {
		m := charts.Series{Name: stepcharts.StepModelName, Source: charts.Model}
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

// key identifies a result's series: device and provenance.
func key(r results.Result) string {
	src, note := fromresult.Source(r.Provenance)
	return r.Provenance.Device + "\x00" + src.String() + "\x00" + note
}

// sourceText is "measured live" or "recorded on NVIDIA H200 (139 GiB), 2026-11-30".
func sourceText(p results.Provenance) string {
	src, note := fromresult.Source(p)
	return src.Describe(note)
}
