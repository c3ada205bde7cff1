// Package roofline is the code behind notebooks/02-roofline.ipynb: arithmetic intensity and the
// roofline.
//
// It computes arithmetic intensities from the workloads' own FLOP and byte formulas, puts the source
// texts' datasheet and model numbers (an H100 SXM and an illustrative 64-core CPU socket, both from
// the course's datasheet table, pkg/hw/datasheet) next to the ceilings measured on this machine (measure.MeasureCeilings), and
// measures matmuls of a few sizes, a layernorm and an elementwise op on every device present, to
// place them on a roofline chart. Results recorded on a GPU (`whygpu record`) are shown next to the
// live ones when they exist; until then the GPU appears only as datasheet roofs, labeled as a model.
package roofline

import (
	"fmt"
	"slices"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "02-roofline"

// KeepPoints is the name the measured points are kept under between cells.
const KeepPoints = Lesson + "-points"

// The machines the lesson quotes, by their names in the datasheet table (pkg/hw/datasheet).
const (
	H100 = "NVIDIA H100 SXM"
	H200 = "NVIDIA H200 SXM"
	CPU  = "illustrative 64-core CPU socket"
)

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = slices.Concat(rooflineExperiments, ridgeBatchExperiments, hierarchyExperiments)

var rooflineExperiments = experiments.List{
	{
		Lesson: Lesson, Name: "points",
		Doc: "measured ceilings, then matmuls of a few sizes, a layernorm and an elementwise op (roofline points)",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return Points(dev, SizesFor(s))
		},
	},
}

// Sizes are the shapes Points measures.
type Sizes struct {
	MatMul        []int          // n of n×n @ n×n matmuls
	MatMulTypes   []dtypes.DType // dtypes of the matmuls (16-bit types only where they have fast paths)
	LNRows, LNCol int            // layernorm shape
	Elementwise   int            // elements of y = a·x + b
}

// SizesFor returns the shapes for a scale: a few seconds in all on a 2-core laptop, or up to the
// source's 4096² matmul and beyond on a GPU. The layernorm is the source's 8192×4096 at both scales,
// and the memory-bound operations are as large as the copy that measures the bandwidth ceiling
// (measure.CeilingWorkloads), so they pay the same costs of memory beyond the caches.
func SizesFor(s experiments.Scale) Sizes {
	return experiments.Pick(s,
		Sizes{MatMul: []int{64, 256, 1024}, MatMulTypes: []dtypes.DType{dtypes.Float32}, LNRows: 8192, LNCol: 4096, Elementwise: 32 << 20},
		Sizes{MatMul: []int{256, 1024, 4096, 8192}, MatMulTypes: []dtypes.DType{dtypes.Float32, dtypes.BFloat16}, LNRows: 8192, LNCol: 4096, Elementwise: 64 << 20})
}

// Workloads lists the workloads of Points for the given sizes, in the order they are measured.
func (s Sizes) Workloads() []workloads.Workload {
	var ws []workloads.Workload
	for _, dt := range s.MatMulTypes {
		for _, n := range s.MatMul {
			ws = append(ws, workloads.Square(n, dt))
		}
	}
	ws = append(ws,
		membound.LayerNorm{Rows: s.LNRows, Cols: s.LNCol, Type: dtypes.Float32},
		membound.Elementwise{N: s.Elementwise, Type: dtypes.Float32})
	return ws
}

// Points measures dev's ceilings (a large matmul and a large copy, cached for the session) and then
// each workload of s, checked against float64 first, so every result carries the ceilings it is
// compared with.
func Points(dev *devices.Device, s Sizes) ([]results.Result, error) {
	if _, err := measure.MeasureCeilings(dev); err != nil {
		return nil, err
	}
	var out []results.Result
	for _, w := range s.Workloads() {
		opt := measure.Options{Warmup: 2, Reps: 5, SampleTime: 2e6} // 2 ms samples: short runs jitter
		r, err := measure.Run(dev, w, opt, true)
		if err != nil {
			return out, err
		}
		if tol := workloads.ToleranceOf(dev, w); r.RelErr > tol {
			return out, fmt.Errorf("%s: %s on %s is wrong (relative error %.2g > %.2g)", Lesson, w, dev.Name, r.RelErr, tol)
		}
		out = append(out, r)
	}
	return out, nil
}

// PointsOnEachDevice runs Points live at the learner's sizes on every XLA device here (float32
// when MatMulTypes is empty), adds the results recorded on devices this machine lacks (at the sizes
// they were recorded at, SizesFor the GPU scale), and keeps them all for the chart cells. The
// notebook's literal is SizesFor(experiments.Laptop) without the types.
func PointsOnEachDevice(s Sizes) ([]results.Result, error) {
	if len(s.MatMulTypes) == 0 {
		s.MatMulTypes = []dtypes.DType{dtypes.Float32}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "points", KeepPoints, func(d *devices.Device) ([]results.Result, error) {
		return Points(d, s)
	})
}

// Intensity is one row of the intensity table: a workload's FLOPs and minimum bytes from its
// formulas, and their ratio.
type Intensity struct {
	Op           string
	FLOPs, Bytes float64
}

// PerByte is FLOPs per byte.
func (i Intensity) PerByte() float64 { return i.FLOPs / i.Bytes }

// Intensities are the source's examples computed with the workloads' formulas (no measurement):
// its 4096² matmul in a 2-byte format, a layernorm over 8192×4096 activations and y = a·x + b, in
// bfloat16 and float32.
func Intensities() []Intensity {
	var out []Intensity
	for _, w := range []workloads.Workload{
		workloads.Square(4096, dtypes.BFloat16),
		workloads.Square(4096, dtypes.Float32),
		workloads.Square(256, dtypes.Float32),
		membound.LayerNorm{Rows: 8192, Cols: 4096, Type: dtypes.BFloat16},
		membound.LayerNorm{Rows: 8192, Cols: 4096, Type: dtypes.Float32},
		membound.Elementwise{N: 8192 * 4096, Type: dtypes.Float32},
	} {
		out = append(out, Intensity{Op: w.String(), FLOPs: workloads.FLOPsOf(w), Bytes: workloads.BytesOf(w)})
	}
	return out
}

// IntensityTable is Intensities as a table (header, rows) for display.Table.
func IntensityTable() units.Table {
	var rows [][]string
	for _, i := range Intensities() {
		rows = append(rows, []string{i.Op, units.SI(i.FLOPs, "FLOP"), units.BytesFixed(i.Bytes),
			fmt.Sprintf("%.3g", i.PerByte()), "formula"})
	}
	return units.Table{Origins: []units.Origin{units.Formula("each operation's FLOPs and minimum bytes (workloads' formulas)")}, Header: []string{"operation", "FLOPs", "minimum bytes", "FLOP/byte", "source"}, Rows: rows}
}

// sheet is the roofs of one of this package's machines (H100, H200, CPU) from the datasheet table,
// which TestSheet checks are there: a missing one shows as zero ceilings in the tables, never a panic.
func sheet(model string) datasheet.Ceilings {
	if model == datasheet.ServerCPU.Model {
		return datasheet.ServerCPU.Ceilings
	}
	g, _ := datasheet.Lookup(model)
	return g.Ceilings
}

// Gap is one of the source's comparisons, computed from the datasheet table.
type Gap struct {
	What     string  // the comparison
	Ratio    float64 // GPU over CPU
	Why      string  // which roofs are compared
	SourceIs string  // what the source text rounds it to
}

// Gaps are the source's three ratios between an H100 SXM and the illustrative CPU socket, computed
// from the datasheet table: a large GEMM is compute-bound on both (ratio of compute roofs), a
// layernorm memory-bound on both (ratio of bandwidths).
func Gaps() []Gap {
	gpu, cpu := sheet(H100), sheet(CPU)
	return []Gap{
		{"large GEMM, GPU bf16 tensor cores vs CPU f32", gpu.Peak("bfloat16") / cpu.Peak("float32"), "compute roofs", "≈97×"},
		{"large GEMM, GPU plain f32 vs CPU f32", gpu.Peak("float32") / cpu.Peak("float32"), "compute roofs", "≈6.6×"},
		{"layernorm (bandwidth-bound on both)", gpu.BandwidthBytes / cpu.BandwidthBytes, "bandwidths", "≈7×"},
	}
}

// GapTable is Gaps as a table for display.Table.
func GapTable() units.Table {
	var rows [][]string
	for _, g := range Gaps() {
		rows = append(rows, []string{g.What, fmt.Sprintf("%.1f×", g.Ratio), g.Why, g.SourceIs})
	}
	return units.Table{Origins: []units.Origin{units.Model("ratios of two datasheet rows: " + sheet(H100).Source + "; " + sheet(CPU).Source)}, Header: []string{"comparison", "ratio (from the datasheet table)", "what is compared", "the source says"}, Rows: rows}
}

// RidgeTable lists the ridge points of the source's two machines (datasheet/model) and of every
// device here: its model peak and, after MeasureCeilings, its measured ceilings.
func RidgeTable(devs []*devices.Device) (units.Table, error) {
	header := []string{"machine", "precision", "peak compute", "memory bandwidth", "ridge [FLOP/byte]", "source"}
	var rows [][]string
	var disturbed []string
	var origins []units.Origin
	add := func(name, prec string, flops, bw float64, src string) {
		disturbed = append(disturbed, "")
		ridge := "—"
		if flops > 0 && bw > 0 {
			ridge = fmt.Sprintf("%.0f", flops/bw)
			if flops/bw < 10 {
				ridge = fmt.Sprintf("%.1f", flops/bw)
			}
		}
		bws := "—"
		if bw > 0 {
			bws = units.SI(bw, "B/s")
		}
		rows = append(rows, []string{name, prec, units.SI(flops, "FLOP/s"), bws, ridge, src})
	}
	for _, m := range []string{H100, CPU} {
		c := sheet(m)
		for _, p := range []string{"float32", "bfloat16"} {
			if c.Peak(p) > 0 {
				add(m, p, c.Peak(p), c.BandwidthBytes, c.Source)
				origins = append(origins, units.Model(c.Source))
			}
		}
	}
	for _, d := range devs {
		add(d.Name+" ("+d.Model+")", "float32", d.Ceilings.Peak("float32"), d.Ceilings.BandwidthBytes, d.Ceilings.Source)
		origins = append(origins, units.Model(d.Ceilings.Source))
		c, err := measure.MeasureCeilings(d)
		if err != nil {
			return units.Table{Origins: origins, Header: header, Rows: rows}, err
		}
		for _, p := range []string{"float32", "bfloat16"} {
			if c.FLOPS[p] > 0 {
				add(d.Name+" ("+d.Model+")", p, c.FLOPS[p], c.BytesPerSec, fmt.Sprintf("measured live: matmul + copy ceilings, %s", c.Date.Format("15:04")))
				disturbed[len(disturbed)-1] = results.WhyDisturbed(c.Results...)
				origins = append(origins, units.Measured(c.Date))
			}
		}
	}
	return units.Table{Origins: origins, Header: header, Rows: rows, Disturbed: disturbed}, nil
}

// Roofs builds the roofline chart's roofs from results: one roof per device measured (live or
// recorded) from the ceilings the results carry, with its points; and the datasheet roofs of the
// H100/H200 and the illustrative CPU as models, for comparison (the GPU ones matter most where no
// GPU was measured or recorded).
func Roofs(rs []results.Result) []charts.Roof {
	var roofs []charts.Roof
	index := map[string]int{}
	for _, r := range rs {
		if r.CeilingBytesPerSec <= 0 || r.FLOPs <= 0 {
			continue
		}
		src, note := fromresult.Source(r.Provenance)
		key := r.Provenance.Device + "|" + note + "|" + r.Precision
		i, ok := index[key]
		if !ok {
			ceil := r.CeilingFLOPS
			if ceil <= 0 {
				continue
			}
			name := r.Provenance.Device + " " + r.Precision + ", measured ceilings"
			if src == charts.Recorded {
				name = r.Provenance.Device + " (" + r.Provenance.Model + ") " + r.Precision + ", recorded ceilings"
			}
			roofs = append(roofs, charts.Roof{Name: name, PeakFLOPS: ceil, Bandwidth: r.CeilingBytesPerSec, Source: src, Note: note})
			i = len(roofs) - 1
			index[key] = i
		}
		pt := fromresult.Point(r)
		pt.Label = shortLabel(r)
		roofs[i].Points = append(roofs[i].Points, pt)
	}
	gpuSeen := false
	for _, r := range rs {
		gpuSeen = gpuSeen || (r.Provenance.Device == devices.CUDA)
	}
	models := []string{H100}
	if gpuSeen {
		models = nil // a measured or recorded GPU is on the chart: its datasheet roof would crowd it
	}
	for _, m := range models {
		c := sheet(m)
		roofs = append(roofs, charts.Roof{Name: m + " bf16 (tensor cores)", PeakFLOPS: c.Peak("bfloat16"), Bandwidth: c.BandwidthBytes, Source: charts.Model, Note: "datasheet"})
		roofs = append(roofs, charts.Roof{Name: m + " f32", PeakFLOPS: c.Peak("float32"), Bandwidth: c.BandwidthBytes, Source: charts.Model, Note: "datasheet"})
	}
	c := sheet(CPU)
	roofs = append(roofs, charts.Roof{Name: "64-core CPU f32", PeakFLOPS: c.Peak("float32"), Bandwidth: c.BandwidthBytes, Source: charts.Model, Note: "the source's illustrative socket"})
	return roofs
}

func shortLabel(r results.Result) string {
	switch r.Workload {
	case "matmul":
		s := fmt.Sprintf("matmul %d", r.Params["n"])
		if r.DType != "float32" {
			s += " " + r.DType
		}
		return s
	case "elementwise":
		return "a·x+b"
	}
	return r.Workload
}

// Chart draws the roofline with every measured point.
func Chart(rs []results.Result) (*plot.Plot, error) {
	return charts.Roofline("roofline: this machine's measured ceilings and points vs datasheet roofs", Roofs(rs))
}

// Verdict is, for one measured result, which side of its device's measured ridge it sits on, the
// regime its time budget names (pkg/model/regime: FLOPs ÷ compute ceiling and bytes ÷ bandwidth against
// the measured time), and how close it came to what the measured roofline allows there.
type Verdict struct {
	Label     string
	Device    string
	Intensity float64 // FLOP/byte
	Ridge     float64 // measured ridge of its device, FLOP/byte
	Side      string  // "left (memory)" or "right (compute)": intensity against the ridge
	Regime    string  // by time budget: compute-bound, memory-bandwidth-bound or overhead-bound
	Explained float64 // share of the measured time the larger budget explains
	Achieved  float64 // FLOP/s
	PctOfRoof float64 // % of the measured roofline at its intensity
	Recorded  bool
	Disturbed string // what disturbed the measurement (results.WhyDisturbed), "" if quiet
	// Rest is what the budget says holds an overhead-bound time when fresh memory's first touch is a
	// notable part of it (regime.Verdict.Rest); "" otherwise.
	Rest string
}

// Verdicts classifies every result with FLOPs by its device's measured ceilings.
func Verdicts(rs []results.Result) []Verdict {
	var out []Verdict
	for _, r := range rs {
		if r.FLOPs <= 0 || r.CeilingFLOPS <= 0 || r.CeilingBytesPerSec <= 0 {
			continue
		}
		ridge := r.CeilingFLOPS / r.CeilingBytesPerSec
		side := "right (compute)"
		if r.Intensity() < ridge {
			side = "left (memory)"
		}
		b := regime.Of(r).Classify()
		v := Verdict{Label: r.Label, Device: r.Provenance.Label(), Intensity: r.Intensity(), Ridge: ridge,
			Side: side, Regime: b.Regime, Explained: b.Explained, Achieved: r.FLOPS(), PctOfRoof: r.PercentOfCeiling(),
			Recorded: r.Provenance.Recorded, Disturbed: results.WhyDisturbed(r)}
		if b.Regime == regime.Overhead && b.FreshNotable() {
			v.Rest = b.Rest()
		}
		out = append(out, v)
	}
	return out
}

// VerdictTable is Verdicts as a table for display.Table; disturbed measurements are marked.
func VerdictTable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, v := range Verdicts(rs) {
		disturbed = append(disturbed, v.Disturbed)
		rows = append(rows, []string{v.Device, v.Label, fmt.Sprintf("%.3g", v.Intensity), fmt.Sprintf("%.1f", v.Ridge), v.Side,
			v.Regime, fmt.Sprintf("%.0f%%", 100*v.Explained), units.SI(v.Achieved, "FLOP/s"), fmt.Sprintf("%.0f%%", v.PctOfRoof)})
	}
	return units.Table{Origins: results.Origins(rs), Header: []string{"device", "workload", "FLOP/byte", "measured ridge", "side of the ridge",
		"regime (time budget)", "larger budget explains", "achieved", "% of roofline there"}, Rows: rows, Disturbed: disturbed}
}

// SourceBenchmark prints the source's benchmark lines — matmul TFLOP/s and layernorm GB/s — from
// results: the largest float32 matmul and the layernorm of each device.
func SourceBenchmark(rs []results.Result) string {
	type pair struct{ mm, ln *results.Result }
	var order []string
	byDev := map[string]*pair{}
	for i := range rs {
		r := &rs[i]
		k := r.Provenance.Label()
		p := byDev[k]
		if p == nil {
			p = &pair{}
			byDev[k] = p
			order = append(order, k)
		}
		switch {
		case r.Workload == "matmul" && (p.mm == nil || r.FLOPs > p.mm.FLOPs) && r.DType == "float32":
			p.mm = r
		case r.Workload == "layernorm":
			p.ln = r
		}
	}
	s := ""
	for _, k := range order {
		p := byDev[k]
		if p.mm == nil || p.ln == nil {
			continue
		}
		s += fmt.Sprintf("%-32s %-9s matmul %d²: %8.3f TFLOP/s   layernorm %d×%d: %7.1f GB/s\n", k, p.mm.Precision,
			p.mm.Params["n"], p.mm.FLOPS()/1e12, p.ln.Params["rows"], p.ln.Params["cols"], p.ln.GBPerSec())
	}
	return s
}

// Caveats lists the points that came out well above the measured roofline (over 120% of it): a roof
// is an upper bound, so such a point says the roof was measured too low for it (its data stayed in a
// cache, or the ceilings were measured under a load the point did not see). Empty when there are none.
func Caveats(rs []results.Result) string {
	s := ""
	for _, v := range Verdicts(rs) {
		if v.PctOfRoof > 120 {
			s += fmt.Sprintf("note: %s on %s reached %.0f%% of the measured roofline: that roof was measured too low for it; re-measure the ceilings before reading its regime.\n", v.Label, v.Device, v.PctOfRoof)
		}
		if v.Rest != "" {
			s += fmt.Sprintf("note: %s is overhead-bound, and %s.\n", v.Label, v.Rest)
		}
	}
	return s
}
