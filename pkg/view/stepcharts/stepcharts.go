package stepcharts

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// StepModelName is the name of the GPU model's lanes and series of the course's step: "H200 (model)".
var StepModelName = gpumodel.Default().Name()

// BandLane is a race lane for a model estimate: the band, its middle for ordering, its assumptions.
func BandLane(e gpumodel.Estimate) charts.Lane {
	return charts.Lane{Device: StepModelName, Time: e.Mid(), Low: e.Low, High: e.High, Source: charts.Model, Note: e.Note()}
}

// StepModelSeries is the GPU model's band per step at each size, as a chart series; x reads a size's
// coordinate (its batch, or its hidden width) and y turns a step's time in seconds and its size into
// the chart's value (applied to both ends of the band).
func StepModelSeries(sizes []experiments.Size, x func(experiments.Size) float64, y func(sec float64, s experiments.Size) float64) charts.Series {
	return StepModelSeriesOn(gpumodel.Default(), sizes, x, y)
}

// StepModelSeriesOn is StepModelSeries on model m (other assumptions, e.g. LaunchEndCrossovers'),
// under the same name.
func StepModelSeriesOn(m gpumodel.Model, sizes []experiments.Size, x func(experiments.Size) float64, y func(sec float64, s experiments.Size) float64) charts.Series {
	s := charts.Series{Name: StepModelName, Source: charts.Model}
	for _, sz := range sizes {
		e := gpumodel.StepEstimateOn(m, sz.MLP())
		s.Note = e.Note()
		pt := charts.XY{X: x(sz), Y: e.Mid().Seconds(), Lo: e.Low.Seconds(), Hi: e.High.Seconds()}
		s.Points = append(s.Points, pt.MapY(func(_, sec float64) float64 { return y(sec, sz) }))
	}
	return s
}

// sizesOf returns the distinct sizes of MLP results, in order of appearance.
func sizesOf(rs []results.Result) []experiments.Size {
	seen := map[experiments.Size]bool{}
	var out []experiments.Size
	for _, r := range rs {
		s := experiments.Size{Batch: r.Params["batch"], Hidden: r.Params["hidden"]}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// HasLiveGPU reports whether any result was measured live on a GPU here.
func HasLiveGPU(rs []results.Result) bool {
	for _, r := range rs {
		if experiments.HasGPU([]results.Result{r}) && !r.Provenance.Recorded {
			return true
		}
	}
	return false
}

// ModelVersus puts the GPU model beside every GPU step result of rs measured with TF32 on (xla:cuda,
// live or recorded): the model's band for the same step and its error against the result
// (gpumodel.Estimate.Versus: "model vs recording: +12% (…)"), one line per result in order; none
// when rs has no GPU step. This is how a recording, once one exists, checks the model.
func ModelVersus(rs []results.Result) []string {
	var out []string
	for _, r := range rs {
		b, h := r.Params["batch"], r.Params["hidden"]
		if r.Provenance.Device != devices.CUDA || r.Stats.Median <= 0 || b <= 0 || h <= 0 || !sameShape(r, experiments.CourseMLP(b, h)) {
			continue
		}
		src, note := fromresult.Source(r.Provenance)
		where := fmt.Sprintf("the step at batch %d × hidden %d on %s, %s,", b, h, r.Provenance.Device, src.Describe(note))
		out = append(out, gpumodel.StepEstimate(experiments.CourseMLP(b, h)).Versus(r.Stats.Median, r.Provenance.Recorded, where))
	}
	return out
}

// sameShape reports whether r is a result of the course's step w (its widths, depth and dtype).
func sameShape(r results.Result, w workloads.MLP) bool {
	for k, v := range w.Params() {
		if r.Params[k] != v {
			return false
		}
	}
	return r.DType == "" || r.DType == strings.ToLower(w.Type.String())
}

// WithModelVersus is line followed by ModelVersus(rs), one per line.
func WithModelVersus(line string, rs []results.Result) string {
	return strings.Join(append([]string{line}, ModelVersus(rs)...), "\n")
}

// TimeSeries turns step results into time-per-step series against x (Batch or Hidden), one per
// device and provenance; unless a GPU was measured live, it adds the GPU model's band at the same
// sizes (beside a recording, if there is one, so the two can be compared: ModelVersus).
func TimeSeries(rs []results.Result, x func(results.Result) float64) []charts.Series {
	series := fromresult.Series(rs, x, results.Result.Seconds)
	if !HasLiveGPU(rs) && len(rs) > 0 {
		series = append(series, StepModelSeries(sizesOf(rs), sizeX(x), func(sec float64, _ experiments.Size) float64 { return sec }))
	}
	return series
}

// ThroughputSeries turns step results into samples/s series against x, with the model as in TimeSeries.
func ThroughputSeries(rs []results.Result, x func(results.Result) float64) []charts.Series {
	series := fromresult.Series(rs, x, experiments.SamplesPerSec)
	if !HasLiveGPU(rs) && len(rs) > 0 {
		series = append(series, StepModelSeries(sizesOf(rs), sizeX(x), func(sec float64, s experiments.Size) float64 { return float64(s.Batch) / sec }))
	}
	return series
}

// FLOPSSeries turns step results into achieved FLOP/s series against x, with the model as in TimeSeries.
func FLOPSSeries(rs []results.Result, x func(results.Result) float64) []charts.Series {
	series := fromresult.Series(rs, x, results.Result.FLOPS)
	if !HasLiveGPU(rs) && len(rs) > 0 {
		series = append(series, StepModelSeries(sizesOf(rs), sizeX(x), func(sec float64, s experiments.Size) float64 {
			return s.MLP().FLOPs() / sec
		}))
	}
	return series
}

// sizeX reads the same coordinate from a Size as x does from a result.
func sizeX(x func(results.Result) float64) func(experiments.Size) float64 {
	return func(s experiments.Size) float64 {
		return x(results.Result{Params: map[string]int{"batch": s.Batch, "hidden": s.Hidden}})
	}
}

// LaunchEndCrossovers are CrossoverLine of the step results rs against x twice more, with the
// GPU model's launches at the two ends of its launch assumption: as one CUDA graph (the host issues
// the whole step in one call, 0.7–1.2 µs per kernel on the GPU: gpumodel.Assumptions.AsGraph) and
// one by one on a stream (2.5–4 µs per launch: OnStream). The learner sees how far the crossover
// moves on what the modeled lane rests on. None when a GPU was measured, live or recorded: then its
// curve decides the crossover, not the model's launch assumption. The GPU times themselves are
// gpumodel's (StepModelSeriesOn).
func LaunchEndCrossovers(rs []results.Result, what string, x func(results.Result) float64) []string {
	if experiments.HasGPU(rs) || len(rs) == 0 {
		return nil
	}
	var out []string
	for _, end := range []struct {
		how string
		a   gpumodel.Assumptions
	}{
		{"launches as one CUDA graph (the low launch cost)", gpumodel.Published.AsGraph()},
		{"launches one by one on a stream (the high launch cost)", gpumodel.Published.OnStream()},
	} {
		m := gpumodel.Default()
		m.A = end.a
		series := append(fromresult.Series(rs, x, results.Result.Seconds), StepModelSeriesOn(m, sizesOf(rs), sizeX(x), func(sec float64, _ experiments.Size) float64 { return sec }))
		out = append(out, "if the "+StepModelName+" "+end.how+": "+CrossoverLine(series, what))
	}
	return out
}

// CrossoverLine says where the CPU's and the GPU's curves cross, as one line: "crossover: batch ≈
// 48 (xla:cpu measured live vs xla:cuda datasheet model …): below it xla:cpu is faster, above it
// xla:cuda", or "crossover: none …" with who is faster throughout. what names the x quantity
// ("batch", "hidden width").
func CrossoverLine(series []charts.Series, what string) string {
	cpu, gpu := -1, -1
	for i, s := range series {
		switch {
		case (strings.HasPrefix(s.Name, devices.CUDA) || s.Name == StepModelName) && gpu < 0:
			gpu = i
		case s.Name == devices.CPU && s.Source == charts.Live && cpu < 0:
			cpu = i
		}
	}
	if cpu < 0 {
		for i, s := range series {
			if s.Name == devices.CPU {
				cpu = i
				break
			}
		}
	}
	if cpu < 0 || gpu < 0 {
		return fmt.Sprintf("crossover: none to find (need a CPU and a GPU series, have %d series)", len(series))
	}
	c, g := series[cpu], series[gpu]
	who := func(s charts.Series) string { return s.Name + " " + s.Source.Brief(s.Note) }
	if g.Banded() {
		return bandCrossover(c, g, what, who(c)+" vs "+who(g))
	}
	if cs := charts.Crossovers([]charts.Series{c, g}); len(cs) > 0 {
		// Noise can make close curves touch more than once at small sizes: the crossover that
		// matters is the last, after which the order holds.
		x := cs[len(cs)-1]
		more := ""
		if len(cs) > 1 {
			more = fmt.Sprintf(" (the curves cross %d times where they are close; this is the last)", len(cs))
		}
		return fmt.Sprintf("crossover: %s ≈ %s (%s vs %s): below it %s is faster, above it %s%s",
			what, units.Plain(units.Round3(x.At.X)), who(c), who(g), x.A, x.B, more)
	}
	lo, hi := overlap(c.Points, g.Points)
	faster := c.Name
	if yAt(g.Points, lo) < yAt(c.Points, lo) {
		faster = g.Name
	}
	return fmt.Sprintf("crossover: none between %s %s and %s (%s vs %s): %s is faster throughout",
		what, units.Plain(lo), units.Plain(hi), who(c), who(g), faster)
}

// bandCrossover says where a measured curve c meets a model band g: a range of sizes between the
// crossing with the band's optimistic end and with its pessimistic end, never one size.
func bandCrossover(c, g charts.Series, what, whose string) string {
	end := func(hi bool) charts.Series {
		e := charts.Series{Name: g.Name, Source: g.Source}
		for _, p := range g.Points {
			y := p.Lo
			if hi {
				y = p.Hi
			}
			e.Points = append(e.Points, charts.XY{X: p.X, Y: y})
		}
		return e
	}
	var at []string
	for _, hi := range []bool{false, true} {
		if cs := charts.Crossovers([]charts.Series{c, end(hi)}); len(cs) > 0 {
			at = append(at, units.Plain(units.Round3(cs[len(cs)-1].At.X)))
		}
	}
	lo, hi := overlap(c.Points, g.Points)
	switch len(at) {
	case 2:
		return fmt.Sprintf("crossover: somewhere between %s ≈ %s and ≈ %s, where %s passes the two ends of the model's band (%s): a model brackets the crossover, a recording would pin it",
			what, at[0], at[1], c.Name, whose)
	case 1:
		// Which side of the band the curve is on at the largest size both cover.
		top := yAt(c.Points, hi)
		if top >= yAt(end(false).Points, hi) && top <= yAt(end(true).Points, hi) {
			return fmt.Sprintf("crossover: %s enters the model's band at %s ≈ %s and stays inside it up to %s %s: too close to call there with a model (%s)",
				c.Name, what, at[0], what, units.Plain(hi), whose)
		}
		side := "slower than even the band's pessimistic end, so the GPU would win"
		if top < yAt(end(false).Points, hi) {
			side = "faster than even the band's optimistic end"
		}
		return fmt.Sprintf("crossover: %s leaves the model's band at %s ≈ %s: above it %s is %s; below it, it lies inside the band, too close to call with a model (%s)",
			c.Name, what, at[0], c.Name, side, whose)
	}
	y, b := yAt(c.Points, lo), yAt(end(false).Points, lo)
	switch {
	case y < b:
		return fmt.Sprintf("crossover: none between %s %s and %s (%s): %s is faster than even the band's optimistic end throughout", what, units.Plain(lo), units.Plain(hi), whose, c.Name)
	case y > yAt(end(true).Points, lo):
		return fmt.Sprintf("crossover: none between %s %s and %s (%s): %s is faster throughout, even at the band's pessimistic end", what, units.Plain(lo), units.Plain(hi), whose, g.Name)
	}
	return fmt.Sprintf("crossover: none to pin between %s %s and %s (%s): %s lies inside the model's band throughout, too close to call with a model", what, units.Plain(lo), units.Plain(hi), whose, c.Name)
}

// overlap is the x range both curves cover.
func overlap(a, b []charts.XY) (lo, hi float64) {
	alo, ahi := xRange(a)
	blo, bhi := xRange(b)
	return max(alo, blo), min(ahi, bhi)
}

func xRange(pts []charts.XY) (lo, hi float64) {
	for i, p := range pts {
		if i == 0 || p.X < lo {
			lo = p.X
		}
		if i == 0 || p.X > hi {
			hi = p.X
		}
	}
	return lo, hi
}

// yAt reads a curve at x, geometrically between its points (as a log–log chart draws it).
func yAt(pts []charts.XY, x float64) float64 {
	s := charts.Series{Points: pts}.Sorted()
	if len(s) == 0 {
		return 0
	}
	if x <= s[0].X {
		return s[0].Y
	}
	for i := 1; i < len(s); i++ {
		if x <= s[i].X {
			p, q := s[i-1], s[i]
			t := math.Log(x/p.X) / math.Log(q.X/p.X)
			return p.Y * math.Pow(q.Y/p.Y, t)
		}
	}
	return s[len(s)-1].Y
}
