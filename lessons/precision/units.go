package precision

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// This file is the section "CPU matrix units": the flags that give a CPU fast 16- and 8-bit matrix
// arithmetic (AVX512_BF16, AVX-512 VNNI, AMX), what the course's model says each would give on this
// CPU's cores and clock, a bf16 and an int8 matmul measured against float32 on xla:cpu, and the
// small-batch case of serving a model from the CPU.

// Names the section's results are kept under between cells.
const (
	KeepUnits   = Lesson + "-units"
	KeepServing = Lesson + "-serving"
)

// Int8 is the precision name of an int8 product with int32 sums (Int8MatMul).
const Int8 = "int8"

// MatrixFlag is one CPU feature flag that speeds up low-precision matrix products.
type MatrixFlag struct {
	Flag string // as /proc/cpuinfo spells it
	What string // what it adds, in one line
	// Peak is the modeled peak it gives, in operations per second, on a CPU with facts f (0: the
	// flag adds registers, not arithmetic), and the precision it is for.
	Peak      func(f devices.CPUFacts) float64
	Precision string
}

// MatrixFlags are the flags the section looks for, vector extensions first.
var MatrixFlags = []MatrixFlag{
	{Flag: "avx512_bf16", What: "vector bf16 dot products (pairs of bf16 multiplied, summed into f32)", Precision: "bfloat16",
		Peak: func(f devices.CPUFacts) float64 {
			f.BF16, f.AMX = true, false
			return measure.CPUModel(f).Peak("bfloat16")
		}},
	{Flag: "avx512_vnni", What: "vector int8 dot products (four int8 products per 32-bit lane, summed into int32)", Precision: Int8,
		Peak: func(f devices.CPUFacts) float64 { return devices.VNNIInt8PerLane * measure.CPUModel(f).Peak("float32") }},
	{Flag: "amx_tile", What: "AMX: eight tile registers per core, 16 rows × 64 bytes each (no arithmetic by itself)"},
	{Flag: "amx_bf16", What: "AMX tile multiply in bf16, summed into f32: a matrix unit per core", Precision: "bfloat16",
		Peak: func(f devices.CPUFacts) float64 { f.AMX = true; return measure.CPUModel(f).Peak("bfloat16") }},
	{Flag: "amx_int8", What: "AMX tile multiply in int8, summed into int32", Precision: Int8,
		Peak: func(f devices.CPUFacts) float64 {
			raised := measure.CPUModel(f).Peak("float32") / devices.CPUModel(f).Peak("float32") // as the other rows are
			return float64(f.Cores) * f.MHz * 1e6 * devices.AMXInt8PerCycle * raised
		}},
}

// MatrixFlagTable lists each flag, whether this CPU has it, what it adds and the peak the course's
// model gives it on this CPU's cores and clock, beside the float32 peak of the same model.
func MatrixFlagTable() units.Table {
	f := devices.ReadCPUFacts()
	model := measure.CPUModel(f)
	f32 := model.Peak("float32")
	t := units.NewTable("flag", "here?", "what it adds", "modeled peak on this CPU's cores and clock", "vs float32")
	t.From(units.Model("flags read from this CPU; peaks from the course's CPU model (cores × clock × per-cycle assumptions)"))
	for _, m := range MatrixFlags {
		here := "no"
		if devices.CPUFlag(m.Flag) {
			here = "yes"
		}
		peak, ratio := "—", "—"
		if m.Peak != nil {
			p := m.Peak(f)
			peak = units.SI(p, "op/s") + " " + m.Precision
			ratio = fmt.Sprintf("%.0f×", p/f32)
		}
		t.Add(m.Flag, here, m.What, peak, ratio)
	}
	t.Note(fmt.Sprintf("Flags: this CPU's feature list (/proc/cpuinfo, %s). Peaks: a model — %d cores × %.2f GHz; float32 %s (%d lanes × %d FMA units × 2); AMX bf16 %d and int8 %d operations per cycle per core, VNNI %d int8 products per 32-bit lane (the course's assumptions, not a datasheet).",
		f.ModelName, f.Cores, f.MHz/1000, units.SI(f32, "FLOP/s"), f.Lanes32, f.FMAUnits, devices.AMXBF16PerCycle, devices.AMXInt8PerCycle, devices.VNNIInt8PerLane))
	if _, raised, ok := strings.Cut(model.Source, "; raised"); ok {
		t.Note("The model's peaks are raised" + raised + " (as in lesson 01).")
	}
	return t
}

// peakFor is the modeled peak of precision p on this CPU with the flags it has: the fastest flag
// present for p, else float32's (without a flag XLA converts to float32 and back).
func peakFor(p string) float64 {
	f := devices.ReadCPUFacts()
	best := measure.CPUModel(f).Peak("float32")
	for _, m := range MatrixFlags {
		if m.Peak != nil && m.Precision == p && devices.CPUFlag(m.Flag) {
			best = max(best, m.Peak(f))
		}
	}
	return best
}

// shareOfPeak is the share of its precision's modeled peak on this CPU (peakFor) a result reached.
func shareOfPeak(r results.Result) float64 { return r.FLOPs / r.Seconds() / peakFor(r.Precision) }

// unitsReading reads a bfloat16 row against the float32 row of the same size on this CPU: the
// modeled peaks with the flags it has, and each row's share of its own peak.
func unitsReading(f32, r16 results.Result) speedReading {
	path, tiles := cpuPath(r16.Precision)
	return speedReading{Precision: r16.Precision, Speedup: f32.Seconds() / r16.Seconds(),
		PeakRatio: peakFor(r16.Precision) / peakFor("float32"), F32Share: shareOfPeak(f32), Share: shareOfPeak(r16), Path: path, Tiles: tiles}
}

// Units is the matmul the section times in float32, bfloat16 and int8: an n×n @ n×n product.
type Units struct {
	N int // side
}

// MaxUnitsN is the largest side the section's cell may ask for: a 2048³ float32 matmul takes about
// 0.2 s per run on two cores, and the int8 check (exact, on the host) grows with n².
const MaxUnitsN = 2048

// Validate says why a side is refused.
func (u Units) Validate() error {
	if u.N < 16 || u.N > MaxUnitsN {
		return fmt.Errorf("%s: side %d refused before anything is allocated: use 16…%d", Lesson, u.N, MaxUnitsN)
	}
	return nil
}

// timeChecked times w on dev (2 warm-up runs, 5 timed samples of at least 3 ms) after checking it
// against its host reference.
func timeChecked(dev *devices.Device, w workloads.Workload) (results.Result, error) {
	r, err := measure.Run(dev, w, measure.Options{Warmup: 2, Reps: 5, SampleTime: 3 * time.Millisecond}, true)
	if err != nil {
		return r, err
	}
	if tol := workloads.ToleranceOf(dev, w); r.RelErr > tol {
		return r, fmt.Errorf("%s: %s on %s is wrong (relative error %.2g > %.2g)", Lesson, w, dev.Name, r.RelErr, tol)
	}
	return r, nil
}

// product is the n-row product of the section in precision p: a MatMul, or an Int8MatMul for Int8.
func product(m, k, n int, p string) workloads.Workload {
	if p == Int8 {
		return workloads.Int8MatMul{M: m, K: k, N: n}
	}
	return workloads.MatMul{M: m, K: k, N: n, Type: dtypes.MapOfNames[p]}
}

// unitPrecisions are the precisions the section compares, float32 first (the reference).
var unitPrecisions = []string{"float32", "bfloat16", Int8}

// UnitsHere times u's matmul in float32, bfloat16 and int8 (int32 sums) on xla:cpu, each checked
// first (int8 exactly), and keeps the results under KeepUnits.
func UnitsHere(u Units) ([]results.Result, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return nil, err
	}
	var out []results.Result
	for _, p := range unitPrecisions {
		r, err := timeChecked(dev, product(u.N, u.N, u.N, p))
		if err != nil {
			return out, results.KeepOr(KeepUnits, out, err)
		}
		out = append(out, r)
	}
	return out, results.KeepOr(KeepUnits, out, nil)
}

// speedup is how many times faster than float32 (at the same rows) each result ran, by index; 0
// where there is no float32 result to compare with.
func speedup(rs []results.Result) []float64 {
	f32 := map[int]time.Duration{}
	for _, r := range rs {
		if r.Precision == "float32" {
			f32[r.Params["m"]] = r.Stats.Median
		}
	}
	out := make([]float64, len(rs))
	for i, r := range rs {
		if b := f32[r.Params["m"]]; b > 0 && r.Stats.Median > 0 {
			out[i] = float64(b) / float64(r.Stats.Median)
		}
	}
	return out
}

// UnitsTable shows each kept matmul's median, spread and rate, its speed against float32 and the
// share it reached of the modeled peak for its precision with the flags this CPU has.
func UnitsTable(rs []results.Result) units.Table {
	t := units.NewTable("device", "matmul", "median", "spread (CV)", "rate", "speed vs float32", "of the modeled peak")
	t.From(results.Origins(rs)...)
	t.From(units.Model("the modeled peak: the course's CPU model with this CPU's flags (the flag table)"))
	sp := speedup(rs)
	over := false
	for i, r := range rs {
		over = over || shareOfPeak(r) > 1
		t.AddMeasured(results.WhyDisturbed(r), r.Provenance.Label(), r.Label, units.SI(r.Seconds(), "s"),
			fmt.Sprintf("±%.0f%%", 100*r.Stats.CV), units.SI(r.FLOPs/r.Seconds(), "op/s"),
			fmt.Sprintf("%.1f×", sp[i]), fmt.Sprintf("%.0f%%", 100*shareOfPeak(r)))
	}
	if r16, r32 := pick(rs, "bfloat16"), pick(rs, "float32"); r16 != nil && r32 != nil {
		t.Note(unitsReading(*r32, *r16).String())
	}
	t.Note("rate: operations per second (int8: integer multiply-adds counted as 2 operations, like FLOPs); modeled peak: the table above.")
	if over {
		t.Note("Above 100%: this run went faster than the model allows, even raised to the ceiling measured earlier (the cores ran above the clock the OS reports, as lesson 01 says): the modeled peak is an estimate from the reported clock, not a hard limit.")
	}
	return t
}

// Serving is the small-batch inference case: one layer of width Width (a Width×Width weight
// matrix) applied to each batch of requests, in float32, bfloat16 and int8.
type Serving struct {
	Width   int
	Batches []int
}

// Limits of a Serving.
const (
	MaxServingWidth   = 4096
	MaxServingBatch   = 256
	MaxServingBatches = 4
)

// Validate says why a serving case is refused.
func (s Serving) Validate() error {
	if s.Width < 16 || s.Width > MaxServingWidth {
		return fmt.Errorf("%s: width %d refused before anything is allocated: use 16…%d", Lesson, s.Width, MaxServingWidth)
	}
	if len(s.Batches) == 0 || len(s.Batches) > MaxServingBatches {
		return fmt.Errorf("%s: give 1…%d batch sizes, not %d", Lesson, MaxServingBatches, len(s.Batches))
	}
	for _, b := range s.Batches {
		if b < 1 || b > MaxServingBatch {
			return fmt.Errorf("%s: batch %d refused: use 1…%d requests", Lesson, b, MaxServingBatch)
		}
	}
	return nil
}

// ServingHere times s's layer at each batch in float32, bfloat16 and int8 on xla:cpu, each checked
// first, and keeps the results under KeepServing.
func ServingHere(s Serving) ([]results.Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return nil, err
	}
	var out []results.Result
	for _, b := range s.Batches {
		for _, p := range unitPrecisions {
			r, err := timeChecked(dev, product(b, s.Width, s.Width, p))
			if err != nil {
				return out, results.KeepOr(KeepServing, out, err)
			}
			out = append(out, r)
		}
	}
	return out, results.KeepOr(KeepServing, out, nil)
}

// weightBytes is the bytes of a result's k×n weight matrix in its precision.
func weightBytes(r results.Result) float64 {
	size := 4.0
	switch r.Precision {
	case "bfloat16", "float16":
		size = 2
	case Int8:
		size = 1
	}
	return float64(r.Params["k"]) * float64(r.Params["n"]) * size
}

// ServingTable shows, per batch and precision, the time per call and per request, the weights'
// bytes and the rate they were read at, and the speed against float32 at the same batch; its note
// names the fastest precision per request at the smallest and the largest batch.
func ServingTable(rs []results.Result) units.Table {
	t := units.NewTable("device", "requests per call", "precision", "median per call", "spread (CV)", "per request", "weights", "weights read at", "speed vs float32")
	t.From(results.Origins(rs)...)
	sp := speedup(rs)
	for i, r := range rs {
		b := float64(r.Params["m"])
		t.AddMeasured(results.WhyDisturbed(r), r.Provenance.Label(), fmt.Sprint(r.Params["m"]), r.Precision, units.SI(r.Seconds(), "s"),
			fmt.Sprintf("±%.0f%%", 100*r.Stats.CV), units.SI(r.Seconds()/b, "s"), units.Bytes(weightBytes(r)),
			units.SI(weightBytes(r)/r.Seconds(), "B/s"), fmt.Sprintf("%.2f×", sp[i]))
	}
	rows := make([]servingRow, len(rs))
	for i, r := range rs {
		rows[i] = servingRow{Batch: r.Params["m"], Precision: r.Precision, Seconds: r.Seconds(), Bytes: weightBytes(r)}
	}
	for _, n := range servingNotes(rows, l3Bytes(), presentFlags()) {
		t.Note(n)
	}
	return t
}

// servingRow is one timed call of the serving table: requests per call, precision, median time and
// the weights' bytes.
type servingRow struct {
	Batch     int
	Precision string
	Seconds   float64
	Bytes     float64
}

// servingNotes read the serving rows: the fastest precision per request at the smallest and largest
// batch; at the smallest, any precision that read fewer bytes than float32 yet took longer (its
// bytes do not explain its time: a slow kernel or per-call overhead); a precision that lost at the
// smallest batch and won at the largest, with the CPU's flags (tiles named only with amx flags);
// and whether the weights fit in the L3 (l3 bytes, 0: unknown), which makes the rate a cache figure.
func servingNotes(rows []servingRow, l3 int64, flags []string) []string {
	var batches []int
	maxBytes := 0.0
	for _, r := range rows {
		if !slices.Contains(batches, r.Batch) {
			batches = append(batches, r.Batch)
		}
		maxBytes = max(maxBytes, r.Bytes)
	}
	if len(batches) == 0 {
		return nil
	}
	slices.Sort(batches)
	lo, hi := batches[0], batches[len(batches)-1]
	at := func(b int, p string) *servingRow {
		for i := range rows {
			if rows[i].Batch == b && rows[i].Precision == p {
				return &rows[i]
			}
		}
		return nil
	}
	var notes []string
	for _, b := range []int{lo, hi} {
		var best *servingRow
		for i := range rows {
			if rows[i].Batch == b && rows[i].Seconds > 0 && (best == nil || rows[i].Seconds < best.Seconds) {
				best = &rows[i]
			}
		}
		if best != nil {
			notes = append(notes, fmt.Sprintf("At %d request(s) per call the fastest was %s: %s per request.", b, best.Precision, units.SI(best.Seconds/float64(b), "s")))
		}
		if lo == hi {
			break
		}
	}
	var slow, turned []string
	for _, p := range unitPrecisions[1:] {
		f32, r := at(lo, "float32"), at(lo, p)
		if f32 == nil || r == nil || r.Bytes >= f32.Bytes || r.Seconds <= f32.Seconds {
			continue
		}
		slow = append(slow, p)
		if f, h := at(hi, "float32"), at(hi, p); hi != lo && f != nil && h != nil && h.Seconds < f.Seconds {
			turned = append(turned, p)
		}
	}
	if len(slow) > 0 {
		notes = append(notes, fmt.Sprintf("At %d request(s) %s read fewer bytes than float32 yet took longer: bytes ÷ bandwidth does not explain that time — a slow kernel for so few rows, or per-call overhead.",
			lo, strings.Join(slow, " and ")))
	}
	if len(turned) > 0 {
		var amx, other []string
		for _, f := range flags {
			if strings.HasPrefix(f, "amx_") {
				amx = append(amx, f)
			} else {
				other = append(other, f)
			}
		}
		hw := "this CPU has no 16- or 8-bit dot-product flags"
		switch {
		case len(amx) > 0:
			hw = "this CPU has AMX (" + strings.Join(amx, ", ") + "), whose tiles take 16 rows at a time"
		case len(other) > 0:
			hw = "this CPU has " + strings.Join(other, ", ") + " and no AMX tiles"
		}
		notes = append(notes, fmt.Sprintf("%s lost to float32 at %d and beat it at %d: with more rows the library ran a faster kernel (%s).",
			strings.Join(turned, " and "), lo, hi, hw))
	}
	switch {
	case l3 <= 0:
	case maxBytes <= float64(l3):
		notes = append(notes, fmt.Sprintf("The weights (%s at most) fit in this CPU's %s L3 and stay there between calls: 'weights read at' is a cache rate, not DRAM bandwidth.",
			units.Bytes(maxBytes), units.Bytes(float64(l3))))
	default:
		notes = append(notes, fmt.Sprintf("The largest weights (%s) exceed this CPU's %s L3: they come from DRAM each call.", units.Bytes(maxBytes), units.Bytes(float64(l3))))
	}
	return notes
}

// l3Bytes is one L3 instance's capacity on this CPU, 0 when the OS does not say.
func l3Bytes() int64 {
	cs, err := devices.CPUCaches()
	if err != nil {
		return 0
	}
	for _, c := range cs {
		if c.Level == 3 {
			return c.Bytes
		}
	}
	return 0
}

// presentFlags are the MatrixFlags this CPU has.
func presentFlags() []string {
	var out []string
	for _, m := range MatrixFlags {
		if devices.CPUFlag(m.Flag) {
			out = append(out, m.Flag)
		}
	}
	return out
}
