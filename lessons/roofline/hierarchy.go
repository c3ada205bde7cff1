package roofline

import (
	"fmt"
	"math"
	"sort"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
)

// KeepHierarchy is the name the working-set sweep is kept under between cells.
const KeepHierarchy = Lesson + "-hierarchy"

var hierarchyExperiments = experiments.List{
	{
		Lesson: Lesson, Name: "hierarchy",
		Doc: "copy and a·x+b swept over working sets from 16 KiB up (many passes per executable): cache and memory plateaus, and the sustained FMA rate",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return Hierarchy(dev, HierarchyFor(s), nil)
		},
	},
}

// HierarchySizes are the working sets (bytes) of the sweep, the ops, and the least traffic one
// execution moves (small working sets get many passes so launching is amortized).
type HierarchySizes struct {
	WorkingSets []int
	Ops         []string // "copy", "axpb"
	MinTraffic  int      // bytes per execution, at least
	MinPasses   int      // passes per execution, at least (amortizes the loop's entry copy)
	// From PairFrom bytes up, where what an execution pays once (its fresh loop array's page faults,
	// the entry copy) is no longer small against a few passes, a point is measured twice, with
	// PairPasses (at least) and twice as many, and its rate is the marginal one (MetricStream).
	PairFrom, PairPasses int
}

// HierarchyFor is the sweep for a scale: 16 KiB to 64 MiB on a laptop in steps of 4, then the
// bandwidth ceiling's working set (measure.BeyondCaches: four times the L3, 128 MiB beside a 32 MiB
// L3) so that DRAM has a point the caches do not serve (a few seconds); 16 KiB to 1 GiB on a GPU
// (past its 50 MB L2 by far).
func HierarchyFor(s experiments.Scale) HierarchySizes {
	laptop := []int{16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20, 64 << 20}
	if b := measure.BeyondCaches(); b > laptop[len(laptop)-1] {
		laptop = append(laptop, b)
	}
	var gpu []int
	for ws := 16 << 10; ws <= 1<<30; ws *= 4 {
		gpu = append(gpu, ws)
	}
	return experiments.Pick(s,
		HierarchySizes{WorkingSets: laptop, Ops: []string{"copy", "axpb"}, MinTraffic: 32 << 20, MinPasses: 2, PairFrom: 4 << 20, PairPasses: 8},
		HierarchySizes{WorkingSets: gpu, Ops: []string{"copy", "axpb"}, MinTraffic: 1 << 30, MinPasses: 4, PairFrom: 256 << 20, PairPasses: 16})
}

// Workloads lists the sweep's workloads in order (float32).
func (s HierarchySizes) Workloads() []membound.Passes {
	var ws []membound.Passes
	for _, op := range s.Ops {
		for _, b := range s.WorkingSets {
			passes := max(s.MinPasses, s.MinTraffic/(2*b), 1)
			if s.PairFrom > 0 && b >= s.PairFrom {
				passes = max(passes, s.PairPasses)
			}
			ws = append(ws, membound.Passes{N: b / 4, Passes: passes, Op: op, Type: dtypes.Float32})
		}
	}
	return ws
}

// FMAWorkload is the sustained multiply-add test: 32 dependent FMAs per element per pass over an
// 8 KiB array (in any L1 cache), enough passes for about 2 GFLOP per execution on a laptop.
func FMAWorkload(s experiments.Scale) membound.Passes {
	return membound.Passes{N: 2048, FMAs: 32, Passes: experiments.Pick(s, 4000, 40000), Op: "axpb", Type: dtypes.Float32}
}

// MetricStream is the metric a large sweep point (HierarchySizes.PairFrom) keeps its streaming rate
// under (bytes/s): the marginal rate of its k and 2k passes (measure.MarginalRate), so it counts
// passes, not what an execution pays once — the same way the bandwidth ceiling is read (the longer
// run's whole rate when the pair is too close to difference).
const MetricStream = "stream_bytes_per_s"

// Hierarchy measures dev's ceilings, then the working-set sweep (checked against float64 up to
// 1 MiB; larger ones are the same graph), from s.PairFrom up each point as two runs, its passes and
// twice as many, kept as the first with the pair's streaming rate (MetricStream); then the FMA rate. progress, if not nil, is
// told after each.
func Hierarchy(dev *devices.Device, s HierarchySizes, progress func(done, total int)) ([]results.Result, error) {
	if _, err := measure.MeasureCeilings(dev); err != nil {
		return nil, err
	}
	ws := s.Workloads()
	scale := experiments.Laptop
	if len(s.WorkingSets) > 0 && s.WorkingSets[len(s.WorkingSets)-1] >= 1<<30 {
		scale = experiments.GPU
	}
	ws = append(ws, FMAWorkload(scale))
	run := func(w membound.Passes) (results.Result, error) {
		check := w.WorkingSet() <= 1<<20
		r, err := measure.Run(dev, w, measure.Options{Warmup: 1, Reps: 3, SampleTime: 2e6}, check)
		if err == nil && check && r.RelErr > r.Tolerance {
			err = fmt.Errorf("%s: %s on %s is wrong (relative error %.2g > %.2g)", Lesson, w, dev.Name, r.RelErr, r.Tolerance)
		}
		return r, err
	}
	var out []results.Result
	for i, w := range ws {
		r, err := run(w)
		if err != nil {
			return out, err
		}
		if w.FMAs <= 1 && s.PairFrom > 0 && int(w.WorkingSet()) >= s.PairFrom {
			w2 := w
			w2.Passes *= 2
			r2, err := run(w2)
			if err != nil {
				return out, err
			}
			rate, _ := measure.MarginalRate(r, r2)
			r.SetMetric(MetricStream, rate)
		}
		out = append(out, r)
		if progress != nil {
			progress(i+1, len(ws))
		}
	}
	return out, nil
}

// streamRate is a sweep point's streaming rate: MetricStream, or for a point kept before it existed
// its whole rate.
func streamRate(r results.Result) float64 {
	if v, ok := r.Metric(MetricStream); ok && v > 0 {
		return v
	}
	return r.BytesPerSec()
}

// HierarchyOnEachDevice runs the sweep live on every XLA device here, adds recordings of devices
// not here, and keeps the results for the chart cells.
func HierarchyOnEachDevice(progress func(done, total int)) ([]results.Result, error) {
	s := HierarchyFor(experiments.CurrentScale())
	return experiments.OnEachDevice(Lesson, "hierarchy", KeepHierarchy, func(d *devices.Device) ([]results.Result, error) {
		return Hierarchy(d, s, progress)
	})
}

func isSweep(r results.Result) bool {
	return r.Params["fmas"] <= 1 && r.Workload != "" && r.Params["working_set"] > 0
}

// HierarchyChart draws bandwidth against working set, one line per device and op.
func HierarchyChart(rs []results.Result) (*plot.Plot, error) {
	var series []charts.Series
	idx := map[string]int{}
	for _, r := range rs {
		if !isSweep(r) {
			continue
		}
		src, note := fromresult.Source(r.Provenance)
		op := r.Workload[len("passes-"):]
		key := r.Provenance.Device + op + note
		i, ok := idx[key]
		if !ok {
			i = len(series)
			idx[key] = i
			series = append(series, charts.Series{Name: r.Provenance.Device + " " + op, Source: src, Note: note})
		}
		series[i].Points = append(series[i].Points, charts.XY{X: float64(r.Params["working_set"]), Y: streamRate(r)})
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("%w: no working-set sweep results", charts.ErrNoData)
	}
	p, err := charts.Bandwidth("bandwidth vs working set: each cache level is a plateau", series)
	if err == nil {
		p.X.Label.Text = "working set [bytes]"
	}
	return p, err
}

// Level is one plateau of the sweep: a cache level (or main memory) with the bandwidth measured
// for working sets that fit it.
type Level struct {
	Name      string  // "L1d", "L2", "L3", "memory"
	Bytes     int64   // capacity (0 for memory)
	Bandwidth float64 // best copy or a·x+b bytes/s over the working sets in this level
	Sets      []int   // the working sets assigned to it
}

// Levels assigns each working set of dev's sweep to the smallest cache it fits in (up to its
// capacity), or to memory when it exceeds the last level by 4× or more, and keeps the best bandwidth
// per level. caches come from devices.CPUCaches (nil: everything is "memory").
func Levels(rs []results.Result, device string, caches []devices.Cache) []Level {
	var levels []Level
	for _, c := range caches {
		levels = append(levels, Level{Name: c.Name(), Bytes: c.Bytes})
	}
	levels = append(levels, Level{Name: "memory"})
	for _, r := range rs {
		if !isSweep(r) || r.Provenance.Device != device || r.Provenance.Recorded {
			continue
		}
		ws := int64(r.Params["working_set"])
		i := len(levels) - 1
		for j, l := range levels[:len(levels)-1] {
			if ws <= l.Bytes {
				i = j
				break
			}
		}
		if i == len(levels)-1 && len(caches) > 0 && ws < 4*caches[len(caches)-1].Bytes {
			continue // between the last cache and memory: partly each (measure.BeyondCaches)
		}
		levels[i].Sets = append(levels[i].Sets, int(ws))
		levels[i].Bandwidth = math.Max(levels[i].Bandwidth, streamRate(r))
	}
	var out []Level
	for _, l := range levels {
		if len(l.Sets) > 0 {
			sort.Ints(l.Sets)
			out = append(out, l)
		}
	}
	return out
}

// LevelTable is Levels as a table for display.Table.
func LevelTable(levels []Level) units.Table {
	var rows [][]string
	for _, l := range levels {
		size := "—"
		if l.Bytes > 0 {
			size = units.BytesFixed(float64(l.Bytes)) + " (from the OS)"
		}
		sets := ""
		for i, s := range l.Sets {
			if i > 0 {
				sets += ", "
			}
			sets += units.BytesFixed(float64(s))
		}
		rows = append(rows, []string{l.Name, size, sets, units.SI(l.Bandwidth, "B/s") + " (measured)"})
	}
	t := units.Table{Origins: []units.Origin{units.MeasuredHere()}, Header: []string{"level", "capacity", "working sets that fit", "best bandwidth"}, Rows: rows}
	if n := len(levels); n >= 2 && levels[n-1].Name == "memory" {
		for _, l := range levels[:n-1] {
			if l.Bandwidth <= levels[n-1].Bandwidth {
				t.Notes = append(t.Notes, fmt.Sprintf("Here %s read no faster than memory (%s against %s): not a slower cache, but what its sets' passes pay besides the bytes "+
					"(a fixed cost per pass of the loop, which weighs most on the short passes of cache-sized sets) or other programs beside the run. "+
					"A cache serves faster than DRAM (lesson 05 reads weights held in the L3 faster than this copy ceiling); rerun the cell when the machine is quiet.",
					l.Name, units.SI(l.Bandwidth, "B/s"), units.SI(levels[n-1].Bandwidth, "B/s")))
			}
		}
	}
	return t
}

// CacheRoofline draws dev's roofline once per level: the measured matmul ceiling as the compute roof
// and each level's measured bandwidth as its memory roof, so the ridge moves left as data sits
// closer to the arithmetic.
func CacheRoofline(rs []results.Result, dev string, caches []devices.Cache) (*plot.Plot, error) {
	var ceiling float64
	for _, r := range rs {
		if r.Provenance.Device == dev && !r.Provenance.Recorded && r.CeilingFLOPS > 0 {
			ceiling = r.CeilingFLOPS
			break
		}
	}
	if ceiling == 0 {
		return nil, fmt.Errorf("%w: no measured ceiling for %s", charts.ErrNoData, dev)
	}
	var roofs []charts.Roof
	for _, l := range Levels(rs, dev, caches) {
		roofs = append(roofs, charts.Roof{Name: dev + " " + l.Name, PeakFLOPS: ceiling, Bandwidth: l.Bandwidth, Source: charts.Live,
			Note: "measured matmul ceiling, " + l.Name + " bandwidth"})
	}
	if len(roofs) == 0 {
		return nil, fmt.Errorf("%w: no sweep results for %s", charts.ErrNoData, dev)
	}
	return charts.Roofline("one roofline per level of the memory hierarchy ("+dev+")", roofs)
}

// FMARow compares the sustained multiply-add rate with the model peak.
type FMARow struct {
	Device            string
	ModelPeak         float64 // FLOP/s from the device model or datasheet
	ModelFrom         string
	MatMul, FMAChains float64 // measured FLOP/s: the large-matmul ceiling, the dependent FMA chains
	Disturbed         string  // what disturbed the FMA-chain measurement (results.WhyDisturbed), "" if quiet
}

// FMARows are, per live device of results, the model peak, the measured matmul ceiling, and the
// measured FMA-chain rate.
func FMARows(rs []results.Result) []FMARow {
	var rows []FMARow
	for _, r := range rs {
		if r.Params["fmas"] <= 1 {
			continue
		}
		rows = append(rows, FMARow{Device: r.Provenance.Label(), ModelPeak: r.PeakFLOPS, ModelFrom: r.PeakSource,
			MatMul: r.CeilingFLOPS, FMAChains: r.FLOPS(), Disturbed: results.WhyDisturbed(r)})
	}
	return rows
}

// FMATable is FMARows as a table for display.Table; disturbed measurements are marked.
func FMATable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, f := range FMARows(rs) {
		disturbed = append(disturbed, f.Disturbed)
		pct := func(v float64) string {
			if f.ModelPeak <= 0 {
				return units.SI(v, "FLOP/s")
			}
			return fmt.Sprintf("%s (%.0f %% of model)", units.SI(v, "FLOP/s"), 100*v/f.ModelPeak)
		}
		rows = append(rows, []string{f.Device, units.SI(f.ModelPeak, "FLOP/s") + " — " + f.ModelFrom, pct(f.MatMul), pct(f.FMAChains)})
	}
	return units.Table{Origins: append(results.Origins(rs), units.Model("model peak: the device's datasheet row or the course's CPU model")), Header: []string{"device", "model peak", "large matmul (measured ceiling)", "32 dependent FMAs per element (measured)"}, Rows: rows, Disturbed: disturbed}
}
