package memory

import (
	"fmt"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// This file is the section "The optimizer update": Adam's update timed alone on xla:cpu (its bytes
// per parameter read and written, the rate it streams them at), the same update for a large model
// on this CPU (at its measured copy ceiling) and on the modeled H200 beside the step's own compute, and
// optimizer offload — what crosses the host link each step when the CPU runs the update.

// KeepUpdate is the name the measured update is kept under between cells.
const KeepUpdate = Lesson + "-update"

// Update is the Adam update the section times: the parameters of an MLP of Depth hidden layers of
// Width (In = Hidden = Out = Width), updated alone (workloads.MLPPart, PartOptimizer) in float32.
type Update struct {
	Width, Depth int
}

// Limits of an Update: the largest has about 67 M parameters, 1.9 GB of update traffic.
const (
	MaxUpdateWidth = 4096
	MaxUpdateDepth = 3
)

// Part is the workload u times.
func (u Update) Part() workloads.MLPPart {
	return workloads.MLPPart{Part: workloads.PartOptimizer, MLP: workloads.MLP{Batch: 1, In: u.Width, Hidden: u.Width, Out: u.Width,
		Depth: u.Depth, Type: dtypes.Float32, Optimizer: workloads.Adam}}
}

// Validate says why an update is refused.
func (u Update) Validate() error {
	if u.Width < 16 || u.Width > MaxUpdateWidth {
		return fmt.Errorf("%s: width %d refused before anything is allocated: use 16…%d", Lesson, u.Width, MaxUpdateWidth)
	}
	if u.Depth < 1 || u.Depth > MaxUpdateDepth {
		return fmt.Errorf("%s: depth %d refused before anything is allocated: use 1…%d hidden layers", Lesson, u.Depth, MaxUpdateDepth)
	}
	return nil
}

// AdamBytesPerParam is what Adam's update moves per float32 parameter: it reads the weight, its
// gradient and the two moments, and writes the weight and the two moments — 7 × 4 bytes
// (workloads.MLPPart's Bytes, per parameter).
const AdamBytesPerParam = 7 * 4

// UpdateHere times u's update on xla:cpu (2 warm-up runs, 5 timed samples, checked against the host
// first), after the device's measured ceilings, and keeps it under KeepUpdate with the ceilings'
// copy (marked ParamCeiling): the bandwidth the update's budget and the scaled tables divide by.
func UpdateHere(u Update) ([]results.Result, error) {
	if err := u.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return nil, err
	}
	c, err := measure.MeasureCeilings(dev)
	if err != nil {
		return nil, err
	}
	w := u.Part()
	r, err := measure.Run(dev, w, measure.Options{Warmup: 2, Reps: 5, SampleTime: 5 * time.Millisecond}, true)
	if err == nil && r.RelErr > workloads.ToleranceOf(dev, w) {
		err = fmt.Errorf("%s: %s on %s is wrong (relative error %.2g)", Lesson, w, dev.Name, r.RelErr)
	}
	if err != nil {
		return nil, results.KeepOr(KeepUpdate, nil, err)
	}
	r.CeilingBytesPerSec = c.BytesPerSec
	rs := []results.Result{r}
	var bw *results.Result // the bandwidth ceiling's measurement: the fastest without FLOPs
	for i, cr := range c.Results {
		if cr.FLOPs == 0 && (bw == nil || cr.BytesPerSec() > bw.BytesPerSec()) {
			bw = &c.Results[i]
		}
	}
	if bw != nil {
		cr := *bw
		cr.Params = map[string]int{ParamCeiling: 1}
		rs = append(rs, cr)
	}
	return rs, results.KeepOr(KeepUpdate, rs, nil)
}

// ParamCeiling marks the kept measurement behind the device's bandwidth ceiling (Params[ParamCeiling]
// = 1): the table reads whether it was disturbed.
const ParamCeiling = "ceiling"

// split parts kept results into the updates and the bandwidth ceiling's copy (nil when none).
func split(rs []results.Result) (updates []results.Result, ceiling *results.Result) {
	for i, r := range rs {
		if r.Params[ParamCeiling] == 1 {
			ceiling = &rs[i]
		} else {
			updates = append(updates, r)
		}
	}
	return updates, ceiling
}

// budget is the update r's time budget against the device's measured ceilings (lesson 01's rule),
// and the bandwidth ceiling it used.
func budget(r results.Result) (regime.Verdict, float64) {
	b := regime.Of(r)
	return b.Classify(), b.CeilingBytesPerSec
}

// ceilingRate is the bandwidth ceiling the kept update was measured against and, when the
// ceiling's measurement was disturbed, why (a disturbed copy runs slower than the memory can).
func ceilingRate(rs []results.Result) (rate float64, disturbed string, err error) {
	us, c := split(rs)
	for _, r := range us {
		if r.Provenance.Device == devices.CPU && r.CeilingBytesPerSec > 0 {
			return r.CeilingBytesPerSec, ceilingWhy(c), nil
		}
	}
	return 0, "", fmt.Errorf("%s: no bandwidth ceiling kept with the update: run the update cell above", Lesson)
}

// atCeiling is bytes ÷ the copy ceiling as a table cell: the time the update takes when bandwidth
// sets it; refused when the ceiling was measured disturbed (its rate is too low to extrapolate from).
func atCeiling(bytes, rate float64, disturbed string) string {
	if disturbed != "" {
		return "— (ceiling measured disturbed)"
	}
	return units.SI(bytes/rate, "s")
}

// UpdateTable shows the measured update: parameters, bytes per parameter and in all, median and
// spread, the rate the bytes streamed at and the arithmetic intensity; its notes read the update's
// time budget against the kept copy ceiling.
func UpdateTable(rs []results.Result) units.Table {
	t := units.NewTable("device", "parameters", "bytes per parameter", "bytes per update", "median", "spread (CV)", "streamed at", "FLOP per byte")
	t.From(origins(rs)...)
	rs, ceiling := split(rs)
	for _, r := range rs {
		p := r.Bytes / AdamBytesPerParam
		t.AddMeasured(results.WhyDisturbed(r), r.Provenance.Label(), units.SI(p, ""), fmt.Sprint(AdamBytesPerParam), units.Bytes(r.Bytes),
			units.SI(r.Seconds(), "s"), fmt.Sprintf("±%.0f%%", 100*r.Stats.CV), units.SI(r.BytesPerSec(), "B/s"), fmt.Sprintf("%.2f", r.FLOPs/r.Bytes))
	}
	t.Note("bytes: read weight, gradient and two moments, write weight and two moments, float32 each (workloads.MLPPart); FLOPs 14 per parameter.")
	for _, r := range rs {
		v, rate := budget(r)
		t.Note(readUpdate(v, rate, results.WhyDisturbed(r), ceilingWhy(ceiling)))
	}
	return t
}

// origins are the kept results' origins: the updates', and the bandwidth ceiling's as measured when
// it was (MeasureCeilings keeps it between runs, as lesson 02's roofline shows it).
func origins(rs []results.Result) []units.Origin {
	us, c := split(rs)
	os := results.Origins(us)
	if c != nil {
		// The ceilings are cached for hours (measure.CeilingsTTL): live only when this run measured
		// them, else an earlier measurement on this machine, dated.
		o := results.OriginOf(c.Provenance)
		if !c.Provenance.Live() && !c.Provenance.Recorded {
			o = units.RecordedOn(fmt.Sprintf("this machine's %s, copy ceiling measured %s", c.Provenance.Device, c.Provenance.Date.Local().Format("2006-01-02 15:04")))
		}
		os = append(os, o)
	}
	return units.Distinct(os)
}

// ceilingWhy is why the kept copy ceiling was disturbed, "" when quiet or not kept.
func ceilingWhy(c *results.Result) string {
	if c == nil {
		return ""
	}
	return results.WhyDisturbed(*c)
}

// readUpdate says what the update's budget shows against this CPU's copy ceiling (rate): no verdict
// when the ceiling was measured disturbed (too low a rate sets too long a T_memory); else the verdict,
// and when the bytes do not explain the time, that the update did not run at the bandwidth — with
// the update's own disturbance when that may be why.
func readUpdate(v regime.Verdict, rate float64, updateDisturbed, ceilingDisturbed string) string {
	switch {
	case v.Regime == regime.Unknown:
		return "Budget: " + v.String() + "."
	case ceilingDisturbed != "":
		return fmt.Sprintf("Budget: no verdict. The copy ceiling, %s, was measured disturbed (%s): a bandwidth too low to test against (T_memory %s would be %.0f%% of the time). Rerun when the machine is quiet.",
			units.SI(rate, "B/s"), ceilingDisturbed, units.Duration(v.TMemory), 100*v.Explained)
	}
	out := fmt.Sprintf("Budget against this CPU's measured copy ceiling, %s: %s.", units.SI(rate, "B/s"), v)
	if v.Regime == regime.Overhead {
		out += " At 0.5 FLOP per byte bandwidth should set this time, and here it did not"
		if updateDisturbed != "" {
			out += ": the run was disturbed (" + updateDisturbed + "), so rerun on a quiet machine before reading more into it."
		} else if v.FreshMemory() {
			out += ": those new pages are the update's new weight and moments, written to fresh buffers every call (GoMLX cannot alias " +
				"the old ones). PyTorch's optimizers update in place, and on a GPU its caching allocator reuses memory."
		} else {
			out += ". A call's fixed cost is microseconds, so the rest is most likely memory traffic the 28-byte budget leaves out " +
				"(the three outputs computed in separate loops, each reading the inputs again: then bandwidth sets it, at a larger byte count), " +
				"or other programs — rerun on a quiet machine to tell."
		}
	}
	return out
}

// Sized is a model the update is sized for: its parameters and the tokens of one training step.
type Sized struct {
	Name           string
	Params, Tokens float64
}

// ScaledModels are the section's models: the source text's worked example (350 M parameters, one
// million tokens per step) and a 7 B model at the same tokens per step.
var ScaledModels = []Sized{
	{"350 M (the source's run)", 350e6, 1e6},
	{"7 B", 7e9, 1e6},
}

// updateWork is the Adam update of p parameters as the GPU model's work: one fused elementwise
// kernel (an assumption) moving AdamBytesPerParam per parameter.
func updateWork(p float64) gpumodel.Work {
	return gpumodel.Work{What: fmt.Sprintf("adam update of %s parameters, float32", units.SI(p, "")), FLOPs: 14 * p,
		Bytes: AdamBytesPerParam * p, Precision: "float32", Kernels: 1, KernelsFrom: "assumed: one fused elementwise kernel"}
}

// measuredRate is the bytes per second the kept update streamed at on xla:cpu.
func measuredRate(rs []results.Result) (float64, error) {
	rs, _ = split(rs)
	for _, r := range rs {
		if r.Provenance.Device == devices.CPU && r.BytesPerSec() > 0 {
			return r.BytesPerSec(), nil
		}
	}
	return 0, fmt.Errorf("%s: no update measured on xla:cpu: run the update cell above", Lesson)
}

// ScaledTable puts, for each ScaledModels entry, the update's bytes, its time on this CPU at the
// measured copy ceiling (bytes ÷ bandwidth: the time if bandwidth sets it, not the update's own rate,
// which overhead and disturbance can pull far below), its band on the modeled H200 and that band against the step's compute
// (6·N·T FLOPs at the model's training MFU, bf16): how small a share of the step the update is
// where memory is fast.
func ScaledTable(rs []results.Result) (units.Table, error) {
	rate, disturbed, err := ceilingRate(rs)
	if err != nil {
		return units.Table{}, err
	}
	m := gpumodel.Default()
	t := units.NewTable("model", "update bytes", "this CPU at its copy ceiling", "H200, modeled: update", "H200, modeled: the step's compute", "update share of the step")
	t.From(origins(rs)...)
	t.From(units.Model(m.Estimate(updateWork(1)).Note() + "; the step: " + m.MFUNote("bfloat16")))
	var e gpumodel.Estimate
	for _, s := range ScaledModels {
		bytes := AdamBytesPerParam * s.Params
		e = m.Estimate(updateWork(s.Params))
		lo, hi := m.RunTime(6*s.Params*s.Tokens, "bfloat16")
		shLo, shHi := updateShareBand(s)
		t.Add(s.Name, units.Bytes(bytes), atCeiling(bytes, rate, disturbed), e.Label(),
			fmt.Sprintf("%s – %s (not a measurement)", units.SI(lo.Seconds(), "s"), units.SI(hi.Seconds(), "s")),
			fmt.Sprintf("%.2g%% – %.2g%%", shLo, shHi))
	}
	t.Note(ceilingNote(rate, disturbed) + " H200 update: " + e.Note())
	t.Note("H200 step: " + m.MFUNote("bfloat16") + "; 6 FLOPs per parameter per token, one million tokens per step.")
	return t, nil
}

// updateShareBand is, in percent, the modeled H200 update's share of the step's modeled compute for
// model s: its fastest end over the slowest step, and its slowest end over the fastest step.
func updateShareBand(s Sized) (lo, hi float64) {
	m := gpumodel.Default()
	e := m.Estimate(updateWork(s.Params))
	stepLo, stepHi := m.RunTime(6*s.Params*s.Tokens, "bfloat16")
	return 100 * e.Low.Seconds() / stepHi.Seconds(), 100 * e.High.Seconds() / stepLo.Seconds()
}

// ceilingNote says what the CPU column divides by: bytes ÷ the measured copy ceiling, the time if
// bandwidth sets it; an upper bound when the ceiling was measured disturbed.
func ceilingNote(rate float64, disturbed string) string {
	out := fmt.Sprintf("This CPU: each model's bytes ÷ the copy ceiling measured here, %s — the time when bandwidth sets it (an extrapolation from the copy, not from the update's own rate).", units.SI(rate, "B/s"))
	if disturbed != "" {
		out = fmt.Sprintf("This CPU: no figure. The copy ceiling, %s, was measured disturbed (%s), too low a rate to extrapolate from: rerun when the machine is quiet.", units.SI(rate, "B/s"), disturbed)
	}
	return out
}

// OffloadBytesPerParam is what crosses the host link per parameter each step when the CPU runs the
// optimizer (ZeRO-Offload's split): the bf16 gradient down to the host, the updated bf16 weight back
// up — 2 bytes each way. The float32 master weights and Adam's moments stay in host memory.
const OffloadBytesPerParam = 2

// OffloadTable shows, for each ScaledModels entry, what optimizer offload moves each step: the bytes
// each way over the host link and their modeled time over PCIe and NVLink-C2C (gpumodel.HostLinks),
// the update on this CPU at its copy ceiling and on the source's 64-core socket at its bandwidth,
// and the update left on the modeled H200 for contrast.
func OffloadTable(rs []results.Result) (units.Table, error) {
	rate, disturbed, err := ceilingRate(rs)
	if err != nil {
		return units.Table{}, err
	}
	m := gpumodel.Default()
	links := gpumodel.HostLinks(m.GPU)
	header := []string{"model", "each way per step"}
	for _, l := range links {
		header = append(header, l.Name+" (model), both ways")
	}
	socket := datasheet.ServerCPU
	header = append(header, "update on this CPU (copy ceiling)", "update on the source's 64-core socket (model)", "H200, modeled: update in HBM")
	t := units.NewTable(header...)
	t.From(origins(rs)...)
	t.From(units.Model("host links: nominal bandwidth × an assumed reached share (PCIe slot, NVLink-C2C); the 64-core socket at its full bandwidth; " + m.Estimate(updateWork(1)).Note()))
	var e gpumodel.Estimate
	for _, s := range ScaledModels {
		each := OffloadBytesPerParam * s.Params
		row := []string{s.Name, units.Bytes(each) + " (bf16 gradients down, bf16 weights up)"}
		for _, l := range links {
			// The gradients go down (device to host), the weights come back up (host to device): each at
			// its own direction's reached share.
			dlo, dhi := l.Copy(each, gpumodel.ToHost, true)
			ulo, uhi := l.Copy(each, gpumodel.ToDevice, true)
			row = append(row, fmt.Sprintf("%s – %s (not a measurement)", units.SI((dlo+ulo).Seconds(), "s"), units.SI((dhi+uhi).Seconds(), "s")))
		}
		e = m.Estimate(updateWork(s.Params))
		row = append(row, atCeiling(AdamBytesPerParam*s.Params, rate, disturbed),
			units.SI(AdamBytesPerParam*s.Params/socket.Ceilings.BandwidthBytes, "s")+" at its bandwidth (not a measurement)", e.Label())
		t.Add(row...)
	}
	for _, l := range links {
		t.Note(l.Name + ": " + l.Source)
	}
	t.Note("The 64-core socket: " + socket.Ceilings.Source + " — its full bandwidth, an upper bound.")
	t.Note("Both ways run one after the other (the update needs the gradients first); the CPU's update streams the float32 master weights and moments in host memory, 28 bytes per parameter. " + ceilingNote(rate, disturbed) + " H200 update: " + e.Note())
	return t, nil
}

// Scaled is ScaledTable of the update kept by the update cell.
func Scaled() (units.Table, error) {
	rs, err := results.Recall(KeepUpdate)
	if err != nil {
		return units.Table{}, err
	}
	return ScaledTable(rs)
}

// Offload is OffloadTable of the update kept by the update cell.
func Offload() (units.Table, error) {
	rs, err := results.Recall(KeepUpdate)
	if err != nil {
		return units.Table{}, err
	}
	return OffloadTable(rs)
}
