package memory

import (
	"strconv"
	"strings"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// KeepCompiled is the name the compiled-memory sweep is kept under between cells.
const KeepCompiled = Lesson + "-compiled"

// Measured values (Metrics) of the compiled-memory sweep: XLA's own figures for the step's executable.
const (
	ParamXLAArgs  = "xla_argument_bytes"
	ParamXLAOut   = "xla_output_bytes"
	ParamXLAAlias = "xla_alias_bytes"
	ParamXLATemp  = "xla_temporary_bytes"
	ParamXLACode  = "xla_code_bytes"
)

var plannedExperiments = experiments.List{
	{
		Lesson: Lesson, Name: "compiled-memory",
		Doc: "Adam MLP step per batch: memory from shapes, XLA's compiled memory figures (arguments/outputs/aliases/temporaries), and the measured peak",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return CompiledSweep(dev, s, nil)
		},
	},
}

// CompiledMemory measures one batch: it compiles the step and reads the figures XLA planned for it
// (pkg/measure/hlo), then times a few steps while tracking the peak memory growth (as MeasureBatch:
// process peak RSS on the CPU devices, GPU memory in use on a GPU), counted from base bytes in use
// (0: from now). Everything lands in the result's Params.
func CompiledMemory(dev *devices.Device, w workloads.MLP, base uint64) (results.Result, error) {
	if err := Budget(dev, w); err != nil {
		return results.Result{}, err
	}
	p := measure.StartPeak(dev.IsGPU(), base)
	t, err := w.NewTrainer(dev)
	if err != nil {
		p.Stop()
		return results.Result{}, err
	}
	defer t.Close()
	g, err := t.TrialStep("")
	if err != nil {
		p.Stop()
		return results.Result{}, err
	}
	m, err := hlo.MemoryOf(g)
	if err != nil {
		p.Stop()
		return results.Result{}, err
	}
	stats, _, err := measure.Time(t.Step, measure.Options{Warmup: 1, Reps: 3})
	grew := p.Stop()
	if err != nil {
		return results.Result{}, err
	}
	r := results.Result{Workload: w.Name(), Label: w.String(), DType: strings.ToLower(w.Type.String()), Params: w.Params(),
		FLOPs: w.FLOPs(), Bytes: w.Bytes(), Stats: stats, RelErr: -1, Provenance: results.ProvenanceOf(dev)}
	setMeasured(&r, dev, p, grew)
	for name, v := range map[string]int64{ParamXLAArgs: m.Arguments, ParamXLAOut: m.Outputs, ParamXLAAlias: m.Aliases,
		ParamXLATemp: m.Temporary, ParamXLACode: m.GeneratedCode} {
		r.SetMetric(name, float64(v))
	}
	return r, nil
}

// CompiledSweep runs CompiledMemory at each batch size of the lesson's sweep (Batches(s)), after a
// small unreported warm-up step, all counted from one baseline (as BatchSweep).
func CompiledSweep(dev *devices.Device, s experiments.Scale, step func(done, total int, what string)) ([]results.Result, error) {
	return sweepFrom(dev, s, step, CompiledMemory)
}

// CompiledHere runs CompiledSweep on the default device at the current scale, adds recordings of
// devices not here, and keeps the results for the next cells.
func CompiledHere(step func(done, total int, what string)) ([]results.Result, error) {
	return sweepHere(CompiledSweep, "compiled-memory", KeepCompiled, step)
}

// XLAFigures are XLA's compiled memory figures of a result, in bytes.
func XLAFigures(r results.Result) hlo.Memory {
	p := func(name string) int64 { return int64(metric(r, name)) }
	return hlo.Memory{Arguments: p(ParamXLAArgs), Outputs: p(ParamXLAOut), Aliases: p(ParamXLAAlias),
		Temporary: p(ParamXLATemp), GeneratedCode: p(ParamXLACode)}
}

// Gaps are, for one result, the differences the lesson explains, in bytes: what XLA's arguments hold
// beyond the formula's resident state (the step counter and learning rate), XLA's outputs vs a
// second copy of that state (the tuple's pointer table and the loss), the formula's gradients and
// activations vs XLA's temporaries, and the measured peak vs XLA's whole plan.
type Gaps struct {
	ArgsMinusState    int64 // XLA arguments − (weights + Adam state + batch)
	OutputsMinusState int64 // XLA outputs − (weights + Adam state)
	TempMinusFormula  int64 // XLA temporaries − (gradients + activations)
	MeasuredMinusXLA  int64 // measured peak growth − XLA total
}

// GapsOf computes the gaps of a compiled-memory result.
func GapsOf(r results.Result) Gaps {
	m, x := modelOf(r).Memory(), XLAFigures(r)
	state := m.Parameters + m.OptimizerState
	return Gaps{
		ArgsMinusState:    x.Arguments - (state + m.Batch),
		OutputsMinusState: x.Outputs - state,
		TempMinusFormula:  x.Temporary - (m.Gradients + m.Activations),
		MeasuredMinusXLA:  int64(metric(r, ParamMeasured)) - x.Total(),
	}
}

func signedBytes(b int64) string {
	if b < 0 {
		return "−" + units.BytesFixed(float64(-b))
	}
	return "+" + units.BytesFixed(float64(b))
}

// CompiledTable shows, per batch: the formula's total, XLA's arguments, outputs, aliases and
// temporaries, XLA's total, and the measured peak growth.
func CompiledTable(rs []results.Result) units.Table {
	var rows [][]string
	for _, r := range rs {
		m, x := modelOf(r).Memory(), XLAFigures(r)
		src := measuredSource(r)
		rows = append(rows, []string{strconv.Itoa(r.Params["batch"]), r.Provenance.Label(),
			units.BytesFixed(float64(m.Total())) + " (shapes)",
			units.BytesFixed(float64(x.Arguments)), units.BytesFixed(float64(x.Outputs)),
			units.BytesFixed(float64(x.Aliases)), units.BytesFixed(float64(x.Temporary)),
			units.BytesFixed(float64(x.Total())) + " (XLA)",
			units.BytesFixed(metric(r, ParamMeasured)) + " (" + src + ")"})
	}
	return units.Table{Origins: append(results.Origins(rs), units.Formula("XLA's memory plan of each compiled step, beside the formula from the shapes")), Header: []string{"batch", "device", "formula total", "XLA arguments", "XLA outputs", "aliased", "XLA temporaries",
		"XLA total", "measured growth at peak"}, Rows: rows}
}

// GapTable shows GapsOf per batch.
func GapTable(rs []results.Result) units.Table {
	var rows [][]string
	for _, r := range rs {
		g := GapsOf(r)
		rows = append(rows, []string{strconv.Itoa(r.Params["batch"]), r.Provenance.Device,
			signedBytes(g.ArgsMinusState), signedBytes(g.OutputsMinusState), signedBytes(g.TempMinusFormula), signedBytes(g.MeasuredMinusXLA)})
	}
	return units.Table{Origins: append(results.Origins(rs), units.Formula("XLA's memory plan minus the formula from the shapes")), Header: []string{"batch", "device", "arguments − (state + batch)", "outputs − state", "temporaries − (gradients + activations)",
		"measured − XLA total"}, Rows: rows}
}
