// Package datamovement is the code behind notebooks/04-moving-data.ipynb: moving data between host
// and device, keeping the model and batch resident, hidden synchronization points, and why timing
// without waiting for the device gives impossible numbers.
//
// On xla:cpu the "device" memory is host memory: a host→device transfer is a memcpy inside RAM, not a
// trip over PCIe. The lesson measures what really happens here, says so, and shows the source's PCIe
// figures (labeled as such) and results recorded on a GPU when they exist.
package datamovement

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
	"github.com/gpu-course/whygpu/pkg/workloads/train"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "04-moving-data"

// Names results are kept under between cells.
const (
	KeepTransfer = Lesson + "-transfer"
	KeepResident = Lesson + "-resident"
	// KeepResidentModel is the Model the residency cell measured, for GPUModelTable.
	KeepResidentModel = Lesson + "-resident-model"
	KeepSync          = Lesson + "-sync"
	KeepUnsynced      = Lesson + "-unsynced"
)

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = experiments.List{
	{
		Lesson: Lesson, Name: "transfer-sweep",
		Doc: "host→device and device→host bandwidth vs transfer size",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return TransferSweep(dev, DefaultTransfers(s).Sizes)
		},
	},
	{
		Lesson: Lesson, Name: "resident",
		Doc: "an MLP training step with everything resident vs re-uploading the batch, vs the parameters too",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return Resident(dev, DefaultResident(s).MLP())
		},
	},
	{
		Lesson: Lesson, Name: "sync-variants",
		Doc: "a training loop reading the loss every step, every 10 steps, only at the end",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			l := DefaultLoop(s)
			return SyncVariants(dev, l.Model.MLP(), l.Steps, time.Duration(l.HostWorkUS)*time.Microsecond)
		},
	},
	{
		Lesson: Lesson, Name: "unsynced",
		Doc: "a matmul timed with the clock stopped at launch (wrong) and at completion",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			u, err := Unsynced(dev, DefaultMatMul(s).N)
			if err != nil {
				return nil, err
			}
			return []results.Result{u.Launch, u.Synced}, nil
		},
	},
}

// ---- host ↔ device bandwidth ----

// TransferSizes are the transfer sizes of the sweep: powers of 4 from 4 KiB to 64 MiB on a laptop,
// to 1 GiB on a GPU.
func TransferSizes(s experiments.Scale) []int {
	hi := experiments.Pick(s, 64<<20, 1<<30)
	var out []int
	for n := 4 << 10; n <= hi; n *= 4 {
		out = append(out, n)
	}
	return out
}

// TransferSweep times host→device and device→host copies of each size on dev. Small copies are
// timed many at a time (fixed per-call costs jitter), large ones a few times.
func TransferSweep(dev *devices.Device, sizes []int) ([]results.Result, error) {
	var out []results.Result
	for _, dir := range []membound.Direction{membound.HostToDevice, membound.DeviceToHost} {
		for _, n := range sizes {
			opt := measure.Options{Warmup: 2, Reps: 5, SampleTime: 2 * time.Millisecond}
			r, err := measure.Run(dev, membound.Transfer{Size: n, Direction: dir}, opt, false)
			if err != nil {
				return out, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// TransferOnEachDevice runs the sweep at the cell's sizes on every XLA device here, adds recorded
// results of devices this machine lacks (at the sizes they were recorded at), and keeps them for the
// chart cell. Sizes Validate refuses are refused before anything is allocated.
func TransferOnEachDevice(t Transfers) ([]results.Result, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "transfer-sweep", KeepTransfer, func(d *devices.Device) ([]results.Result, error) {
		if _, err := measure.MeasureCeilings(d); err != nil { // cached for a session; the results carry them
			return nil, err
		}
		return TransferSweep(d, t.Sizes)
	})
}

// TransferChart draws bandwidth against transfer size, a line per device and direction.
func TransferChart(rs []results.Result) (*plot.Plot, error) {
	return charts.Bandwidth("host↔device copies: bandwidth vs transfer size", seriesBy(rs,
		func(r results.Result) string { return directionName(r.Workload) },
		func(r results.Result) float64 { return float64(r.Params["bytes"]) }, results.Result.BytesPerSec))
}

func directionName(workload string) string {
	switch workload {
	case "transfer-h2d":
		return "host→device"
	case "transfer-d2h":
		return "device→host"
	}
	return workload
}

// seriesBy groups results into series by device, provenance and what(r).
func seriesBy(rs []results.Result, what func(results.Result) string, x, y func(results.Result) float64) []charts.Series {
	var out []charts.Series
	index := map[string]int{}
	for _, r := range rs {
		src, note := sourceOf(r)
		name := r.Provenance.Device + " " + what(r)
		if r.Provenance.Recorded {
			name = r.Provenance.Device + " (" + r.Provenance.Model + ") " + what(r)
		}
		key := name + "|" + note
		i, ok := index[key]
		if !ok {
			out = append(out, charts.Series{Name: name, Source: src, Note: note})
			i = len(out) - 1
			index[key] = i
		}
		out[i].Points = append(out[i].Points, charts.XY{X: x(r), Y: y(r)})
	}
	return out
}

func sourceOf(r results.Result) (charts.Source, string) {
	if r.Provenance.Recorded {
		return charts.Recorded, fmt.Sprintf("%s, %s", r.Provenance.Model, r.Provenance.Date.Format("2006-01-02"))
	}
	return charts.Live, ""
}

// TransferTable summarizes the sweep: for each device and direction, the time of the smallest copy
// (the fixed cost) and the bandwidth of the largest.
func TransferTable(rs []results.Result) units.Table {
	keys, m := transferSpans(rs)
	var rows [][]string
	var disturbed []string
	for _, k := range keys {
		s := m[k]
		disturbed = append(disturbed, results.WhyDisturbed(s.small, s.large))
		rows = append(rows, []string{s.small.Provenance.Label(), directionName(s.small.Workload),
			units.BytesFixed(s.small.Bytes) + " in " + units.SI(s.small.Seconds(), "s"),
			units.BytesFixed(s.large.Bytes) + " at " + units.SI(s.large.BytesPerSec(), "B/s")})
	}
	return units.Table{Origins: results.Origins(rs), Header: []string{"device", "direction", "smallest copy: fixed cost", "largest copy: bandwidth"}, Rows: rows, Disturbed: disturbed}
}

// transferSpan is one device and direction's copies in a sweep: the smallest and the largest.
type transferSpan struct{ small, large results.Result }

// transferSpans groups a transfer sweep by device and direction, in the order first seen.
func transferSpans(rs []results.Result) ([]string, map[string]*transferSpan) {
	var keys []string
	m := map[string]*transferSpan{}
	for _, r := range rs {
		k := r.Provenance.Label() + "|" + directionName(r.Workload)
		s := m[k]
		if s == nil {
			s = &transferSpan{small: r, large: r}
			m[k] = s
			keys = append(keys, k)
		}
		if r.Bytes < s.small.Bytes {
			s.small = r
		}
		if r.Bytes > s.large.Bytes {
			s.large = r
		}
	}
	return keys, m
}

// PCIe figures quoted by the source text (not measured here). Its 16–32 GB/s are the nominal
// per-direction rates of PCIe Gen3 x16 (≈ 16 GB/s) and Gen4 x16 (≈ 32 GB/s); H100 and H200 hosts use
// PCIe Gen5 x16, ≈ 64 GB/s per direction (datasheet.H200.PCIeBytes).
const (
	SourcePCIeLow   = 16e9  // "roughly 16–32 GB/s" over PCIe: Gen3 x16
	SourcePCIeHigh  = 32e9  // Gen4 x16
	SourceOnDevice  = 900e9 // "900+ GB/s of GPU memory bandwidth"
	SourceExamplePC = 10e9  // its worked example: "at ~10 GB/s over PCIe"
)

// SourceTransferTable is the source's worked example — 1, 16 and 256 MB at ~10 GB/s — computed
// (a formula on its figures), next to the same bytes at Gen4's 32 GB/s and at an H100's datasheet
// HBM bandwidth: bytes ÷ bandwidth in every column, none with a fixed cost per transfer, so they
// compare like with like. A note adds what the GPU model charges at 1 MB with those fixed costs.
func SourceTransferTable() units.Table {
	g := datasheet.H100
	var rows [][]string
	for _, mb := range []float64{1, 16, 256} {
		b := mb * 1e6
		rows = append(rows, []string{fmt.Sprintf("%.0f MB", mb),
			units.SI(b/SourceExamplePC, "s"), units.SI(b/SourcePCIeHigh, "s"), units.Duration(gpumodel.BytesAtDatasheet(g, b).Seconds())})
	}
	const small = 1e6
	link := gpumodel.HostLinks(g)[0]
	up, upHi := link.Transfer(small)
	e := gpumodel.Model{GPU: g, A: gpumodel.Published}.Estimate(gpumodel.Work{What: "read once", Bytes: small, Precision: "float32", Kernels: 1, KernelsFrom: "one kernel reading the batch"})
	return units.Table{
		Origins: []units.Origin{units.Formula("bytes ÷ bandwidth: the source's ~10 and 32 GB/s over PCIe, the H100's datasheet HBM"), units.Model(e.Note())},
		Header: []string{"batch", "over PCIe at ~10 GB/s (source's example)", "at 32 GB/s (source's upper PCIe figure: Gen4 x16)",
			"read once from H100 HBM at " + units.SI(g.Bandwidth(), "B/s") + " (datasheet)"},
		Rows: rows,
		Notes: []string{
			"Every column is bytes ÷ bandwidth, with no fixed cost per transfer: at every size the columns differ by the ratio of the bandwidths.",
			fmt.Sprintf("Each transfer also pays a fixed cost. In the %s model (not a measurement; its assumptions behind the badge), 1 MB takes %s – %s as one pinned copy over its %s and %s read once from HBM by one kernel: at small sizes fixed costs shrink the gap far below the ratio of the bandwidths.",
				g.Short+" SXM", units.Duration(up.Seconds()), units.Duration(upHi.Seconds()), g.PCIe, e.Band()),
		},
	}
}

// ---- resident vs re-uploaded ----

// ResidentModel is the MLP of the residency experiment at scale s (DefaultResident's).
func ResidentModel(s experiments.Scale) workloads.MLP { return DefaultResident(s).MLP() }

// Residency variants.
const (
	AllResident   = "everything resident"
	BatchUpload   = "upload the batch each step"
	ParamsUpload  = "upload batch + parameters each step"
	ParamsRoundUp = "parameters to host and back + batch, each step"
)

// Resident times one training step of w on dev four ways: with everything resident on the device;
// with a fresh batch uploaded every step (Trainer.SetBatch, the normal case); with the batch and as
// many bytes as the parameters uploaded every step (a model moved to the device every step); and
// with those bytes also copied back to the host first (a `.cpu()` / `.cuda()` round trip of the
// model). The parameter-sized copies are real host↔device copies (membound.Transfer) of exactly
// the parameters' bytes; the step itself keeps using its resident parameters, so its result stays
// right. Each result's Label names the variant; Bytes counts what crosses the bus per step.
func Resident(dev *devices.Device, w workloads.MLP) ([]results.Result, error) {
	tr, err := w.NewTrainer(dev)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	if _, err := tr.Compile(); err != nil {
		return nil, err
	}
	pbytes := int(w.NumParams()) * w.ParamType().Size()
	x := make([]float32, w.Batch*w.In)
	y := make([]float32, w.Batch*w.Out)
	for i := range x {
		x[i] = float32(i%97)/97 - 0.5
	}
	for i := range y {
		y[i] = float32(i%89)/89 - 0.5
	}
	batchBytes := (len(x) + len(y)) * w.Type.Size()
	up, err := membound.Transfer{Size: pbytes, Direction: membound.HostToDevice}.Prepare(dev)
	if err != nil {
		return nil, err
	}
	defer up.Close()
	down, err := membound.Transfer{Size: pbytes, Direction: membound.DeviceToHost}.Prepare(dev)
	if err != nil {
		return nil, err
	}
	defer down.Close()
	variants := []struct {
		name  string
		bytes int
		fn    func() error
	}{
		{AllResident, 0, tr.Step},
		{BatchUpload, batchBytes, func() error {
			if err := tr.SetBatch(x, y); err != nil {
				return err
			}
			return tr.Step()
		}},
		{ParamsUpload, batchBytes + pbytes, func() error {
			if err := up.Run(); err != nil {
				return err
			}
			if err := tr.SetBatch(x, y); err != nil {
				return err
			}
			return tr.Step()
		}},
		{ParamsRoundUp, batchBytes + 2*pbytes, func() error {
			if err := down.Run(); err != nil {
				return err
			}
			if err := up.Run(); err != nil {
				return err
			}
			if err := tr.SetBatch(x, y); err != nil {
				return err
			}
			return tr.Step()
		}},
	}
	var out []results.Result
	for i, v := range variants {
		st, _, err := measure.Time(v.fn, measure.Options{Warmup: 2, Reps: 7, SampleTime: 5 * time.Millisecond})
		if err != nil {
			return out, err
		}
		out = append(out, results.Result{
			Workload: "train-step-" + fmt.Sprint(i), Label: v.name, DType: w.Type.String(),
			Params: map[string]int{"batch": w.Batch, "variant": i, "bus_bytes": v.bytes, "params": int(w.NumParams())},
			FLOPs:  w.FLOPs(), Bytes: float64(v.bytes), Stats: st, RelErr: -1,
			Provenance: results.ProvenanceOf(dev),
		})
	}
	return out, nil
}

// ResidentOnEachDevice runs Resident with the cell's model on every XLA device here, adds recorded
// results (at the model they were recorded with), and keeps the model for GPUModelTable. A model
// Validate refuses is refused before anything is allocated.
func ResidentOnEachDevice(m Model) ([]results.Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := results.KeepValue(KeepResidentModel, m); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "resident", KeepResident, func(d *devices.Device) ([]results.Result, error) {
		return Resident(d, m.MLP())
	})
}

// ResidentTable shows each variant's step time and its cost over the resident step.
func ResidentTable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	base := map[string]time.Duration{}
	for _, r := range rs {
		k := r.Provenance.Label()
		if r.Params["variant"] == 0 {
			base[k] = r.Stats.Median
		}
	}
	for _, r := range rs {
		k := r.Provenance.Label()
		extra := "—"
		if b := base[k]; b > 0 && r.Params["variant"] > 0 {
			extra = fmt.Sprintf("%+.0f%%", 100*(float64(r.Stats.Median)/float64(b)-1))
		}
		disturbed = append(disturbed, results.WhyDisturbed(r))
		rows = append(rows, []string{k, r.Label, units.BytesFixed(r.Bytes), units.SI(r.Seconds(), "s"),
			fmt.Sprintf("±%.0f%%", 100*r.Stats.CV), extra})
	}
	return units.Table{Origins: results.Origins(rs), Header: []string{"device", "each step", "host↔device bytes per step", "median step", "CV", "vs resident"}, Rows: rows, Disturbed: disturbed}
}

// GPUModelRows estimates, for the same MLP on the source's H100 (the course's one GPU model,
// gpumodel, not a measurement), the step's time as a band and the time to push the parameters over
// PCIe: Gen5 x16 as H100/H200 hosts have, and the source's Gen4/Gen3 figures. The last row holds the
// model's assumptions.
func GPUModelRows(w workloads.MLP) units.Table {
	m := gpumodel.Model{GPU: datasheet.H100, A: gpumodel.Published}
	e := gpumodel.StepEstimateOn(m, w)
	pbytes := float64(w.NumParams()) * 4
	gen5 := m.GPU.PCIeBytes
	rows := [][]string{
		{"one training step on the GPU", e.Band(), e.Label() + "; " + e.Bound},
		{"parameters over PCIe Gen5 x16 at ~64 GB/s (H100/H200 hosts, nominal per direction)", units.SI(pbytes/gen5, "s"), "model: bytes ÷ link rate"},
		{"parameters over PCIe Gen4 x16 at ~32 GB/s (source's upper figure)", units.SI(pbytes/SourcePCIeHigh, "s"), "model: bytes ÷ link rate"},
		{"parameters over PCIe Gen3 x16 at ~16 GB/s (source's lower figure)", units.SI(pbytes/SourcePCIeLow, "s"), "model: bytes ÷ link rate"},
		{"the float32 batch over PCIe Gen5 x16", units.SI(float64(w.Memory().Batch)/gen5, "s"), "model: bytes ÷ link rate"},
	}
	pcie := gpumodel.HostLinks(m.GPU)[0]
	batch := float64(w.Memory().Batch)
	for _, c := range []struct {
		what   string
		pinned bool
	}{{"pinned (page-locked: pin_memory=True)", true}, {"pageable (the driver stages it through a pinned buffer)", false}} {
		lo, hi := pcie.Copy(batch, gpumodel.ToDevice, c.pinned)
		rows = append(rows, []string{"the float32 batch host → device, " + c.what, units.Duration(lo.Seconds()) + " – " + units.Duration(hi.Seconds()),
			"GPU model band, not a measurement: " + pcie.Source})
	}
	rows = append(rows, []string{gpumodel.ChangeLine("host"), "", ""},
		[]string{"GPU model assumptions (not a measurement)", "", strings.Join(e.Assumptions(), "; ")})
	return units.Table{Origins: []units.Origin{units.Model(e.Note())}, Header: []string{w.String() + " on an H100 (model, not a measurement)", "time", "source"}, Rows: rows}
}

// ---- hidden sync points ----

// SyncModel is the MLP of the sync experiment at scale s (DefaultLoop's).
func SyncModel(s experiments.Scale) workloads.MLP { return DefaultLoop(s).Model.MLP() }

// ReadEvery are the loop variants: the loss read every step, every 10 steps, only at the end (0).
var ReadEvery = []int{1, 10, 0}

// SyncVariants runs w's training loop on dev once per ReadEvery variant, each with hostWork of real
// CPU work per step (logging, bookkeeping) that an asynchronous launch can overlap with the device's
// step unless a loss read made the host wait. Each variant is run three times; the results hold the
// wall time per step (median of the three) and, in Metrics, the reads and the device's busy and idle
// time per step.
func SyncVariants(dev *devices.Device, w workloads.MLP, steps int, hostWork time.Duration) ([]results.Result, error) {
	tr, err := w.NewTrainer(dev)
	if err != nil {
		return nil, err
	}
	defer tr.Close()
	var out []results.Result
	for _, k := range ReadEvery {
		var per []time.Duration
		var last train.LoopReport
		var idle []time.Duration
		probe := measure.StartProbe()
		for range 3 {
			rep, err := train.Loop(tr, train.LoopOptions{Steps: steps, ReadEvery: k, HostWork: hostWork})
			if err != nil {
				return out, err
			}
			per = append(per, rep.StepTime())
			idle = append(idle, rep.DeviceIdle()/time.Duration(rep.Steps))
			last = rep
		}
		slices.Sort(idle)
		out = append(out, results.Result{
			Workload: "train-loop", Label: readLabel(k), DType: w.Type.String(),
			Params: map[string]int{"read_every": k, "steps": steps, "host_work_us": int(hostWork / time.Microsecond)},
			Metrics: map[string]float64{MetricReads: float64(last.Reads),
				MetricIdleUS: float64(idle[1]) / float64(time.Microsecond),
				MetricBusyUS: float64(last.DeviceBusy/time.Duration(last.Steps)) / float64(time.Microsecond)},
			FLOPs: w.FLOPs(), Stats: probe.Summarize(per), RelErr: -1,
			Provenance: results.ProvenanceOf(dev),
		})
	}
	return out, nil
}

// Names of the sync results' measured values (Metrics): loss reads, and the device's busy and idle
// time per step in µs.
const (
	MetricReads  = "reads"
	MetricBusyUS = "busy_per_step_us"
	MetricIdleUS = "idle_per_step_us"
)

// metric is r's measured value called name (results.Result.Metric, which also reads results saved
// when these were kept among the Params), 0 when absent.
func metric(r results.Result, name string) float64 {
	v, _ := r.Metric(name)
	return v
}

func readLabel(k int) string {
	switch k {
	case 0:
		return "loss read only at the end"
	case 1:
		return "loss read every step"
	}
	return fmt.Sprintf("loss read every %d steps", k)
}

// SyncOnEachDevice runs SyncVariants with the cell's loop on every XLA device here and adds recorded
// results (at the loop they were recorded with). A loop Validate refuses is refused before anything
// is allocated.
func SyncOnEachDevice(l Loop) ([]results.Result, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "sync-variants", KeepSync, func(d *devices.Device) ([]results.Result, error) {
		return SyncVariants(d, l.Model.MLP(), l.Steps, time.Duration(l.HostWorkUS)*time.Microsecond)
	})
}

// SyncTable shows each loop variant's time per step, reads, and the device's idle time per step.
func SyncTable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, r := range rs {
		disturbed = append(disturbed, results.WhyDisturbed(r))
		rows = append(rows, []string{r.Provenance.Label(), r.Label, fmt.Sprint(metric(r, MetricReads)),
			units.SI(r.Seconds(), "s"), fmt.Sprintf("±%.0f%%", 100*r.Stats.CV),
			units.SI(metric(r, MetricBusyUS)*1e-6, "s"),
			units.SI(metric(r, MetricIdleUS)*1e-6, "s")})
	}
	return units.Table{Origins: results.Origins(rs), Header: []string{"device", "loop", "loss reads", "wall time per step", "spread", "device busy per step", "device idle per step"}, Rows: rows, Disturbed: disturbed}
}

// ---- timing without waiting ----

// Unsynced times an n×n float32 matmul on dev with the clock stopped at launch and at completion
// (measure.TimeWithoutWaiting).
func Unsynced(dev *devices.Device, n int) (measure.Unsynced, error) {
	if _, err := measure.MeasureCeilings(dev); err != nil {
		return measure.Unsynced{}, err
	}
	return measure.TimeWithoutWaiting(dev, workloads.Square(n, dtypes.Float32), measure.Options{Warmup: 2, Reps: 10})
}

// UnsyncedOnEachDevice runs Unsynced at the cell's side on every XLA device here (the lesson's is
// 512; `whygpu record` uses 4096 on a GPU) and keeps the pairs as results: launch-timed first, then
// completion-timed. A side Validate refuses is refused before anything is allocated.
func UnsyncedOnEachDevice(m MatMul) ([]results.Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "unsynced", KeepUnsynced, func(d *devices.Device) ([]results.Result, error) {
		u, err := Unsynced(d, m.N)
		if err != nil {
			return nil, err
		}
		return []results.Result{u.Launch, u.Synced}, nil
	})
}

// UnsyncedTable shows both clocks next to the device's model peak and measured ceiling: the
// launch-timed FLOP/s are impossible, above any roof. The asynchronous launch is emulated on every
// device, a GPU included (measure.TimeWithoutWaiting queues the run on a goroutine and returns, as a
// CUDA launch would: go-xla has no execute-without-waiting), and the table says so on every row.
func UnsyncedTable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	origins := results.Origins(rs)
	for _, r := range rs {
		clock := "at completion (right)"
		if strings.Contains(r.Label, "stopped at launch") {
			clock = "at launch (wrong; emulated: the course's goroutine launch queue)"
			origins = append(origins, units.EmulatedBy(measure.EmulatedLaunch))
		}
		ceil := "—"
		if r.CeilingFLOPS > 0 {
			ceil = fmt.Sprintf("%.0f%%", 100*r.FLOPS()/r.CeilingFLOPS)
		}
		disturbed = append(disturbed, results.WhyDisturbed(r))
		rows = append(rows, []string{r.Provenance.Label(), clock, units.SI(r.Seconds(), "s"), units.SI(r.FLOPS(), "FLOP/s"),
			fmt.Sprintf("%.0f%%", r.PercentOfPeak()), ceil})
	}
	return units.Table{Origins: origins, Header: []string{"device", "timer stopped", "median", "\"achieved\"", "% of model peak", "% of measured matmul ceiling"}, Rows: rows, Disturbed: disturbed}
}

// UnsyncedLine says, in one line, what the launch-stopped clock claims and that it is impossible,
// and that the launch was emulated (on every device: measure.EmulatedLaunch).
func UnsyncedLine(rs []results.Result) string {
	if len(rs) == 0 {
		return "no unsynced timing"
	}
	r := rs[0]
	how := "emulated launch on " + r.Provenance.Device + ": the course's goroutine launch queue, not a CUDA launch"
	return fmt.Sprintf("timer stopped at launch: %.0f GFLOP/s (%.0f%% of the model peak; %s) — impossible", r.GFLOPS(), r.PercentOfPeak(), how)
}

// ---- helpers ----

// BandwidthLines says, per device and direction, the bandwidth of the largest transfer measured,
// and per device the copy bandwidth beyond the caches its results carry (measured with the
// ceilings: reads plus writes of a reused buffer, the rate of the pageable Problem's staging copy).
func BandwidthLines(rs []results.Result) string {
	keys, m := transferSpans(rs)
	s := ""
	for _, k := range keys {
		b := m[k]
		s += fmt.Sprintf("%-40s %-12s largest copy %s at %s\n", b.large.Provenance.Label(), directionName(b.large.Workload),
			units.BytesFixed(b.large.Bytes), units.SI(b.large.BytesPerSec(), "B/s"))
	}
	seen := map[string]bool{}
	for _, r := range rs {
		if r.CeilingBytesPerSec > 0 && !seen[r.Provenance.Label()] {
			seen[r.Provenance.Label()] = true
			s += fmt.Sprintf("%-40s copy bandwidth beyond the caches (reads + writes of a reused buffer, measured with the ceilings): %s\n",
				r.Provenance.Label(), units.SI(r.CeilingBytesPerSec, "B/s"))
		}
	}
	return s
}

// GPUModelTable is GPUModelRows for the model the residency cell measured last (kept by
// ResidentOnEachDevice); before that cell ran, the error says to run it.
func GPUModelTable() (units.Table, error) {
	m, err := results.RecallValue[Model](KeepResidentModel)
	if err != nil {
		return units.Table{}, err
	}
	return GPUModelRows(m.MLP()), nil
}
