package roofline

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// KeepRidgeBatch is the name the batch sweep is kept under between cells.
const KeepRidgeBatch = Lesson + "-ridge-batch"

var ridgeBatchExperiments = experiments.List{
	{
		Lesson: Lesson, Name: "ridge-batch",
		Doc: "B×D @ D×D matmuls for B = 1 … 2048 (D = 1024): GFLOP/s and intensity vs batch, against the measured ridge",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return BatchSweep(dev, BatchSweepFor(s), nil)
		},
	},
}

// BatchSizes are the shapes of the batch sweep: B×D activations times a D×D weight matrix.
type BatchSizes struct {
	D       int
	Batches []int
	Types   []dtypes.DType
}

// BatchSweepFor is the sweep for a scale: D = 1024 and B = 1, 2, 4 … 2048 in float32 on a laptop
// (a few seconds); on a GPU also bfloat16 (the tensor-core ridge) and B up to 8192.
func BatchSweepFor(s experiments.Scale) BatchSizes {
	pow2 := func(hi int) []int {
		var bs []int
		for b := 1; b <= hi; b *= 2 {
			bs = append(bs, b)
		}
		return bs
	}
	return experiments.Pick(s,
		BatchSizes{D: 1024, Batches: pow2(2048), Types: []dtypes.DType{dtypes.Float32}},
		BatchSizes{D: 1024, Batches: pow2(8192), Types: []dtypes.DType{dtypes.Float32, dtypes.BFloat16}})
}

// BatchIntensity is the arithmetic intensity of a B×D by D×D matmul with elements of elem bytes:
// 2·B·D² FLOPs over (B·D + D² + B·D) × elem bytes (read the activations and the weights, write the
// outputs). For B ≪ D it is about 2·B / elem: each weight read from memory is used B times.
func BatchIntensity(b, d int, elem float64) float64 {
	B, D := float64(b), float64(d)
	return 2 * B * D * D / (elem * (2*B*D + D*D))
}

// RidgeBatch is the batch size at which a B×D by D×D matmul reaches intensity ridge (FLOP/byte),
// solving 2·B·D² / (elem·(2·B·D + D²)) = ridge for B: B = ridge·elem·D / (2·(D − ridge·elem)).
// Below it the matmul is memory-bound (it streams the weights for too few rows), above it
// compute-bound. +Inf when D ≤ ridge·elem: no batch is enough, since the intensity never exceeds
// D / elem.
func RidgeBatch(ridge float64, d int, elem float64) float64 {
	D := float64(d)
	if D <= ridge*elem {
		return math.Inf(1)
	}
	return ridge * elem * D / (2 * (D - ridge*elem))
}

// BatchSweep measures dev's ceilings and then every B×D @ D×D matmul of s, each checked against
// float64 first. progress, if not nil, is told after each point.
func BatchSweep(dev *devices.Device, s BatchSizes, progress func(done, total int)) ([]results.Result, error) {
	if _, err := measure.MeasureCeilings(dev); err != nil {
		return nil, err
	}
	var out []results.Result
	total := len(s.Types) * len(s.Batches)
	for _, dt := range s.Types {
		if ok, _ := workloads.Supports(dev, dt); !ok {
			continue
		}
		for _, b := range s.Batches {
			w := workloads.MatMul{M: b, K: s.D, N: s.D, Type: dt}
			r, err := measure.Run(dev, w, measure.Options{Warmup: 1, Reps: 3, SampleTime: 2e6}, true)
			if err != nil {
				return out, err
			}
			if tol := workloads.ToleranceOf(dev, w); r.RelErr > tol {
				return out, fmt.Errorf("%s: %s on %s is wrong (relative error %.2g > %.2g)", Lesson, w, dev.Name, r.RelErr, tol)
			}
			out = append(out, r)
			if progress != nil {
				progress(len(out), total)
			}
		}
	}
	return out, nil
}

// BatchSweepOnEachDevice runs the sweep live on every XLA device here, adds recordings of devices
// not here, and keeps the results for the chart cells.
func BatchSweepOnEachDevice(progress func(done, total int)) ([]results.Result, error) {
	s := BatchSweepFor(experiments.CurrentScale())
	return experiments.OnEachDevice(Lesson, "ridge-batch", KeepRidgeBatch, func(d *devices.Device) ([]results.Result, error) {
		return BatchSweep(d, s, progress)
	})
}

// seriesKey groups a sweep's results into one curve per device, provenance and dtype.
func seriesName(r results.Result) string { return r.Provenance.Device + " " + r.DType }

// BatchChart draws GFLOP/s against batch size, one line per device and dtype, with each device's
// measured matmul ceiling as a flat line and the H200's modeled band (pkg/model/gpumodel) for bfloat16.
func BatchChart(rs []results.Result) (*plot.Plot, error) {
	var series []charts.Series
	idx := map[string]int{}
	ceil := map[string]charts.Series{}
	d := 0
	for _, r := range rs {
		src, note := fromresult.Source(r.Provenance)
		key := seriesName(r) + "\x00" + note
		i, ok := idx[key]
		if !ok {
			i = len(series)
			idx[key] = i
			series = append(series, charts.Series{Name: seriesName(r), Source: src, Note: note})
		}
		b := float64(r.Params["m"])
		d = r.Params["k"]
		series[i].Points = append(series[i].Points, charts.XY{X: b, Y: r.FLOPS()})
		if r.CeilingFLOPS > 0 {
			c := ceil[key]
			c.Name, c.Source, c.Note = seriesName(r)+" measured ceiling (large matmul)", src, note
			c.Points = append(c.Points, charts.XY{X: b, Y: r.CeilingFLOPS})
			ceil[key] = c
		}
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("%w: no batch sweep results", charts.ErrNoData)
	}
	keys := make([]string, 0, len(ceil))
	for k := range ceil {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		series = append(series, ceil[k])
	}
	if band := h200Band(rs, d); len(band.Points) > 0 {
		series = append(series, h200Roofline(band, d), band)
	}
	return charts.Lines(charts.Axes{Title: fmt.Sprintf("B×%d @ %d×%d matmul: throughput vs batch size", d, d, d),
		X: "batch size B [rows]", Y: "throughput [FLOP/s]", LogX: true, LogY: true}, series...)
}

// h200Band is pkg/model/gpumodel's band for the same matmuls in bfloat16 on an H200 — each product's own
// kernel time, without the per-launch and per-execution fixed costs (Assumptions.KernelOnly), so the
// chart shows the memory→compute bend it is about — unless a GPU was
// measured live (then the real curve is on the chart); beside a GPU recording it stays, so the two
// can be compared (ModelVersus).
func h200Band(rs []results.Result, d int) charts.Series {
	seen := map[int]bool{}
	var bs []int
	for _, r := range rs {
		if isGPU(r) && !r.Provenance.Recorded {
			return charts.Series{}
		}
		if b := r.Params["m"]; !seen[b] {
			seen[b] = true
			bs = append(bs, b)
		}
	}
	m := gpumodel.Default()
	m.A = m.A.KernelOnly()
	s := charts.Series{Name: m.Name() + " bfloat16, kernel time only", Source: charts.Model,
		Note: fmt.Sprintf("pkg/model/gpumodel, not a measurement: the product's own roofline (tiles on %d SMs, operand bytes at HBM bandwidth), without the fixed cost per launch and per execution, so the memory→compute bend shows", m.GPU.SMs)}
	for _, b := range bs {
		w := workloads.MatMul{M: b, K: d, N: d, Type: dtypes.BFloat16}
		e := m.Estimate(gpumodel.MatMul(b, d, d, "bfloat16", w.Bytes()))
		f := w.FLOPs()
		s.Points = append(s.Points, charts.XY{X: float64(b), Y: f / e.Mid().Seconds(), Lo: f / e.High.Seconds(), Hi: f / e.Low.Seconds()})
	}
	return s
}

// h200Roofline is the H200's bf16 roofline by the formula at the band's batches: min(peak,
// intensity × bandwidth) from the datasheet, the memory→compute bend at RidgeBatch.
func h200Roofline(band charts.Series, d int) charts.Series {
	g := gpumodel.Default().GPU
	s := charts.Series{Name: g.Short + " bf16 roofline by the formula (datasheet)", Source: charts.Model,
		Note: fmt.Sprintf("min(peak, intensity × HBM bandwidth), the bend at B ≈ %.0f; not a measurement", RidgeBatch(g.Peak("bfloat16")/g.Bandwidth(), d, 2))}
	for _, p := range band.Points {
		s.Points = append(s.Points, charts.XY{X: p.X, Y: math.Min(g.Peak("bfloat16"), BatchIntensity(int(p.X), d, 2)*g.Bandwidth())})
	}
	return s
}

// isGPU reports whether r was measured (or recorded) on an NVIDIA GPU.
func isGPU(r results.Result) bool {
	return strings.HasPrefix(r.Provenance.Device, devices.CUDA) || strings.Contains(strings.ToLower(r.Provenance.Model), "nvidia")
}

// bf16Estimate is the GPU model's band for one B×d @ d×d bfloat16 matmul on the H200.
func bf16Estimate(b, d int) (workloads.MatMul, gpumodel.Estimate) {
	w := workloads.MatMul{M: b, K: d, N: d, Type: dtypes.BFloat16}
	return w, gpumodel.Default().Estimate(gpumodel.MatMul(b, d, d, "bfloat16", w.Bytes()))
}

// ModelVersus puts the GPU model beside every bfloat16 matmul of the sweep measured on a GPU
// (a recording, when there is no GPU here): the model's band for the same product and its error
// against the measurement (gpumodel's Versus), one line per point.
func ModelVersus(rs []results.Result) []string {
	var out []string
	for _, r := range rs {
		b, d := r.Params["m"], r.Params["k"]
		if !isGPU(r) || r.DType != "bfloat16" || b <= 0 || d <= 0 || r.Params["n"] != d || r.Stats.Median <= 0 {
			continue
		}
		src, note := fromresult.Source(r.Provenance)
		where := fmt.Sprintf("the %d×%d @ %d×%d bf16 matmul on %s, %s,", b, d, d, d, r.Provenance.Device, src.Describe(note))
		_, e := bf16Estimate(b, d)
		out = append(out, e.Versus(r.Stats.Median, r.Provenance.Recorded, where))
	}
	return out
}

// BatchRoofline puts the sweep's points on each device's measured roofline, labeled by batch size,
// next to the H200's datasheet bf16 roof.
func BatchRoofline(rs []results.Result) (*plot.Plot, error) {
	var roofs []charts.Roof
	idx := map[string]int{}
	for _, r := range rs {
		if r.CeilingFLOPS <= 0 || r.CeilingBytesPerSec <= 0 {
			continue
		}
		src, note := fromresult.Source(r.Provenance)
		key := seriesName(r) + "\x00" + note
		i, ok := idx[key]
		if !ok {
			i = len(roofs)
			idx[key] = i
			roofs = append(roofs, charts.Roof{Name: seriesName(r) + " (measured ceilings)", PeakFLOPS: r.CeilingFLOPS,
				Bandwidth: r.CeilingBytesPerSec, Source: src, Note: note})
		}
		b := r.Params["m"]
		if b&(b-1) == 0 && bitsOdd(b) { // label every other power of two: 1, 4, 16, …
			pt := fromresult.Point(r)
			pt.Label = fmt.Sprintf("B=%d", b)
			roofs[i].Points = append(roofs[i].Points, pt)
		}
	}
	c := sheet(H200)
	roofs = append(roofs, charts.Roof{Name: "H200 SXM bf16", PeakFLOPS: c.Peak("bfloat16"), Bandwidth: c.BandwidthBytes, Source: charts.Model, Note: "datasheet"})
	return charts.Roofline("the batch sweep on the roofline: batch size moves a matmul right", roofs)
}

// bitsOdd reports whether the power of two b is 4ᵏ (1, 4, 16, …).
func bitsOdd(b int) bool {
	n := 0
	for b > 1 {
		b >>= 1
		n++
	}
	return n%2 == 0
}

// RidgeBatchRow is one line of the ridge-batch table.
type RidgeBatchRow struct {
	Device, Precision string
	Ridge             float64 // FLOP/byte
	RidgeFrom         string  // "measured ceilings" or "datasheet"
	Batch             float64 // batch where intensity = ridge (formula)
	Bend              int     // measured: smallest B reaching 70 % of the device's best GFLOP/s in the sweep (0: none)
	Disturbed         string  // what disturbed the sweep's measurements behind this row (results.WhyDisturbed), "" if quiet
}

// RidgeBatchRows computes, per device and dtype of the sweep, the ridge batch from its measured
// ridge and the batch at which its measured throughput bends over; then the H100 and H200 from their
// datasheet bf16 ridges (models, not measurements).
func RidgeBatchRows(rs []results.Result) []RidgeBatchRow {
	var rows []RidgeBatchRow
	idx := map[string]int{}
	best := map[string]float64{}
	d := 1024
	for _, r := range rs {
		key := seriesName(r) + "\x00" + r.Provenance.Label()
		d = r.Params["k"]
		if _, ok := idx[key]; !ok && r.CeilingBytesPerSec > 0 {
			idx[key] = len(rows)
			ridge := r.CeilingFLOPS / r.CeilingBytesPerSec
			elem := r.Bytes / float64(2*r.Params["m"]*d+d*d)
			rows = append(rows, RidgeBatchRow{Device: r.Provenance.Label(), Precision: r.Precision,
				Ridge: ridge, RidgeFrom: "measured ceilings", Batch: RidgeBatch(ridge, d, elem)})
		}
		best[key] = math.Max(best[key], r.FLOPS())
	}
	for _, r := range rs {
		key := seriesName(r) + "\x00" + r.Provenance.Label()
		i, ok := idx[key]
		if !ok {
			continue
		}
		if why := results.WhyDisturbed(r); why != "" && rows[i].Disturbed == "" {
			rows[i].Disturbed = results.WhyDisturbed(sweepOf(rs, key)...)
		}
		if b := r.Params["m"]; r.FLOPS() >= 0.7*best[key] && (rows[i].Bend == 0 || b < rows[i].Bend) {
			rows[i].Bend = b
		}
	}
	for _, m := range []string{H100, H200} {
		c := sheet(m)
		ridge := c.Ridge("bfloat16")
		rows = append(rows, RidgeBatchRow{Device: m + " (model)", Precision: "bfloat16", Ridge: ridge, RidgeFrom: "datasheet",
			Batch: RidgeBatch(ridge, d, 2)})
	}
	return rows
}

// sweepOf is the results of one device and dtype series (key as in RidgeBatchRows).
func sweepOf(rs []results.Result, key string) []results.Result {
	var out []results.Result
	for _, r := range rs {
		if seriesName(r)+"\x00"+r.Provenance.Label() == key {
			out = append(out, r)
		}
	}
	return out
}

// RidgeBatchTable is RidgeBatchRows as a table for display.Table; rows from disturbed sweeps are marked.
func RidgeBatchTable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, r := range RidgeBatchRows(rs) {
		disturbed = append(disturbed, r.Disturbed)
		bend := "—"
		if r.Bend > 0 {
			bend = fmt.Sprintf("B = %d (measured)", r.Bend)
		}
		rows = append(rows, []string{r.Device, r.Precision, fmt.Sprintf("%.3g (%s)", r.Ridge, r.RidgeFrom),
			fmt.Sprintf("≈ %.0f (formula: %.1f)", r.Batch, r.Batch), bend})
	}
	return units.Table{Origins: results.Origins(rs), Header: []string{"device", "precision", "ridge [FLOP/byte]", "ridge batch at D = 1024", "throughput reaches 70 % of its best at"}, Rows: rows, Disturbed: disturbed,
		Notes: ModelVersus(rs)}
}

// BatchGain is how many times more FLOP/s the largest batch reached than batch 1, per device and
// dtype, e.g. "xla:cpu float32: 31× from B = 1 to B = 2048".
func BatchGain(rs []results.Result) string {
	type ends struct{ lo, hi results.Result }
	var order []string
	m := map[string]*ends{}
	for _, r := range rs {
		k := r.Provenance.Label() + " " + r.DType
		e, ok := m[k]
		if !ok {
			e = &ends{lo: r, hi: r}
			m[k] = e
			order = append(order, k)
		}
		if r.Params["m"] < e.lo.Params["m"] {
			e.lo = r
		}
		if r.Params["m"] > e.hi.Params["m"] {
			e.hi = r
		}
	}
	var b strings.Builder
	for _, k := range order {
		e := m[k]
		fmt.Fprintf(&b, "%s: %.3g GFLOP/s at B = %d → %.3g GFLOP/s at B = %d: %.1f× from batching\n", k,
			e.lo.GFLOPS(), e.lo.Params["m"], e.hi.GFLOPS(), e.hi.Params["m"], e.hi.FLOPS()/e.lo.FLOPS())
	}
	return b.String()
}

// WeightsInCache says, for the live xla:cpu float32 sweep of results, whether the D×D weights fit in
// this CPU's last-level cache as the OS reports it (devices.CPUCaches): where they do, repeated runs
// read them from cache, not DRAM, and small batches can beat the DRAM roof.
func WeightsInCache(rs []results.Result) string {
	caches, err := devices.CPUCaches()
	if err != nil || len(caches) == 0 {
		return fmt.Sprintf("This CPU's caches are not readable here (%v): whether the weights fit in its last level is unknown.", err)
	}
	return weightsInCache(rs, caches[len(caches)-1])
}

func weightsInCache(rs []results.Result, last devices.Cache) string {
	d := 0
	for _, r := range rs {
		if r.Provenance.Device == devices.CPU && !r.Provenance.Recorded && r.DType == "float32" {
			d = r.Params["k"]
			break
		}
	}
	if d == 0 {
		return "No live xla:cpu float32 sweep: run the sweep cell first."
	}
	w := float64(d) * float64(d) * 4
	if w <= float64(last.Bytes) {
		return fmt.Sprintf("The %d×%d float32 weights are %s and this CPU's %s holds %s (from the OS): repeated runs read them from cache, so small batches can beat the DRAM roof.",
			d, d, units.Bytes(w), last.Name(), units.Bytes(float64(last.Bytes)))
	}
	return fmt.Sprintf("The %d×%d float32 weights are %s, more than this CPU's %s of %s (from the OS): every run reads them from DRAM.",
		d, d, units.Bytes(w), last.Name(), units.Bytes(float64(last.Bytes)))
}
