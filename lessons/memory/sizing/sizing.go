// Package sizing is the sizing widget over pkg/model/memsize's formula: its form (presets and every
// control), its view (one stacked bar per device with the H200's and this machine's memory as
// lines, a caption saying whether it fits, the formula in a fold), a table of the presets, and the
// refusal of a setting that does not fit, before anything is allocated, naming the bytes it needs
// and the control to turn. Lesson 06 explores it; lesson 10 reprises it for data parallelism.
// Every number is computed from the formula, and the chart and table say so.
package sizing

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/model/memsize"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/controls"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Preset returns the sizing preset called name ("lesson 09's GPT", "GPT-2 small", "1.3B (GPT-3
// XL shape)", "7B (GPT-3 6.7B shape)"); the zero Setting and false if there is none.
func Preset(name string) (memsize.Setting, bool) {
	p, ok := memsize.PresetNamed(name)
	return p.Setting, ok
}

// H200Bytes is the H200's memory from the course's datasheet table (pkg/hw/datasheet).
func H200Bytes() float64 { return float64(datasheet.H200.MemoryBytes) }

// Limits are the lines on a sizing chart: the H200's memory (datasheet) and this machine's or
// seat's (its cgroup limit when it has one, else the host's RAM).
func Limits() []charts.Limit {
	here := devices.HostMemoryLimit()
	return []charts.Limit{
		{Label: `H200 memory (its datasheet's "141 GB", as the device counts it)`, Bytes: H200Bytes()},
		{Label: "this machine: " + here.Source, Bytes: float64(here.Total)},
	}
}

// bar is a sizing as a chart bar.
func bar(label string, z memsize.Sizing) charts.Memory {
	return charts.Memory{Label: label,
		Weights: z.Part(memsize.PartParams).Bytes, Gradients: z.Part(memsize.PartGradients).Bytes,
		Optimizer: z.Part(memsize.PartOptimizer).Bytes, Activations: z.Part(memsize.PartActivation).Bytes,
		Workspace: z.Part(memsize.PartWorkspace).Bytes}
}

// Chart draws one stacked bar per device of s (data parallelism: every device holds the
// same), or, with ZeRO or several devices, the four ZeRO stages side by side at s's degree so the
// chosen one reads against the others; the H200's and this machine's memory are lines.
func Chart(s memsize.Setting) (*plot.Plot, error) {
	z, err := s.Size()
	if err != nil {
		return nil, err
	}
	bars := []charts.Memory{bar("per device", z)}
	if s.Devices() > 1 {
		bars = bars[:0]
		for stage := 0; stage <= 3; stage++ {
			t := s
			t.ZeRO = stage
			zt, err := t.Size()
			if err != nil {
				return nil, err
			}
			label := "ZeRO-" + strconv.Itoa(stage)
			if stage == s.ZeRO {
				label += " (chosen)"
			}
			bars = append(bars, bar(label, zt))
		}
	}
	return charts.MemoryBars(charts.MemoryChart{
		Title:   fmt.Sprintf("%s\nmemory per device (of %d) — computed from the formula (pkg/model/memsize)", s, s.Devices()),
		Bars:    bars,
		Limits:  Limits(),
		Origins: []units.Origin{units.Formula("pkg/model/memsize's formula on the setting's shapes: " + s.String())},
	})
}

// PresetTable shows each preset's parameters, per-device parts and total from the formula, and
// whether it fits an H200 and this machine.
func PresetTable() units.Table {
	t := units.NewTable("preset", "Ψ", "bytes/param (state)", "parameters", "gradients", "optimizer", "activations", "workspace", "total per device", "fits an H200?", "shape from")
	t.From(units.Formula("pkg/model/memsize's formula on each preset's shapes"), units.Model("fits an H200?: the H200 datasheet memory"))
	here := devices.HostMemoryLimit()
	for _, p := range memsize.Presets() {
		z, err := p.Size()
		if err != nil {
			t.Add(p.Name, "refused: "+err.Error())
			continue
		}
		row := []string{p.Setting.String(), units.Plain(float64(z.Params)), units.Plain(p.PerParam())}
		for _, part := range z.Parts {
			row = append(row, units.Bytes(part.Bytes))
		}
		fits := "yes"
		if z.Total() > H200Bytes() {
			fits = "no"
		}
		if z.Total() <= float64(here.Total) {
			fits += "; fits here too"
		}
		t.Add(append(row, units.Bytes(z.Total()), fits, p.Source)...)
	}
	t.Note("computed from the formula (pkg/model/memsize), not measured; this machine: " + here.String())
	return t
}

// FitsHere is Fits against what this machine or seat has available now.
func FitsHere(s memsize.Setting) error {
	here := devices.HostMemoryLimit()
	return Fits(s, here.Available, "this machine ("+here.String()+")")
}

// Custom is the preset drop-down's last option: the controls as set.
const Custom = "custom"

var (
	precisions = []string{memsize.FP32.String(), memsize.BF16Mixed.String()}
	optimizers = []string{memsize.SGD.String(), memsize.Adam.String()}
	recomputes = []string{memsize.NoRecompute.String(), memsize.Selective.String(), memsize.Full.String()}
	embeddings = []string{"untied", "tied"} // the output layer's own matrix, or the embedding table's
)

// Form is the sizing widget's controls, starting at preset start (a memsize preset name).
func Form(start string) []controls.Control {
	names := []string{}
	for _, p := range memsize.Presets() {
		names = append(names, p.Name)
	}
	s, ok := Preset(start)
	if !ok {
		start, s = names[0], memsize.Presets()[0].Setting
	}
	v := valuesOf(s)
	num := func(name, label string, hi int) controls.Control {
		return controls.Control{Name: name, Label: label, Min: 1, Max: hi, Value: v[name]}
	}
	return []controls.Control{
		{Name: "preset", Label: "preset", Options: append(names, Custom), Value: start, Preset: true},
		num("layers", "layers", memsize.MaxLayers), num("width", "width", memsize.MaxWidth), num("heads", "heads", memsize.MaxWidth),
		num("seq", "sequence length", memsize.MaxSeq), num("vocab", "vocabulary", memsize.MaxVocab),
		{Name: "embeddings", Label: "embeddings", Options: embeddings, Value: v["embeddings"]},
		num("batch", "micro-batch", memsize.MaxBatch),
		{Name: "precision", Label: "precision", Options: precisions, Value: v["precision"]},
		{Name: "optimizer", Label: "optimizer", Options: optimizers, Value: v["optimizer"]},
		{Name: "recompute", Label: "recompute", Options: recomputes, Value: v["recompute"]},
		{Name: "zero", Label: "ZeRO stage", Options: []string{"0", "1", "2", "3"}, Value: v["zero"]},
		num("dp", "data-parallel devices", memsize.MaxDP),
	}
}

// valuesOf is a setting as the form's values (its preset not included).
func valuesOf(s memsize.Setting) controls.Values {
	i := strconv.Itoa
	return controls.Values{"layers": i(s.Layers), "width": i(s.Width), "heads": i(s.Heads), "seq": i(s.Seq), "vocab": i(s.Vocab),
		"batch": i(s.MicroBatch), "precision": s.Precision.String(), "optimizer": s.Optimizer.String(),
		"recompute": s.Recompute.String(), "zero": i(s.ZeRO), "dp": i(s.Devices()), "embeddings": embeddings[b2i(s.Tied)]}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// SettingOf reads the form's values: the preset's setting, or (preset "custom") the controls'.
func SettingOf(v controls.Values) memsize.Setting {
	if p, ok := Preset(v["preset"]); ok {
		return p
	}
	s := memsize.Setting{Model: memsize.Model{Name: Custom, Layers: v.Int("layers"), Width: v.Int("width"), Heads: v.Int("heads"),
		Seq: v.Int("seq"), Vocab: v.Int("vocab"), Tied: v["embeddings"] == "tied"}, MicroBatch: v.Int("batch"), ZeRO: v.Int("zero"), DP: v.Int("dp")}
	s.Precision = memsize.Precision(slices.Index(precisions, v["precision"]))
	s.Optimizer = memsize.Optimizer(slices.Index(optimizers, v["optimizer"]))
	s.Recompute = memsize.Recompute(slices.Index(recomputes, v["recompute"]))
	return s
}

// View is the widget's view of the form's values: the per-device bars (Chart), a
// caption saying whether it fits an H200 and this machine (refused here, before allocating, with
// the control to turn), and the formula of every part in the fold. A preset's values are sent
// back to the form (View.Set).
func View(v controls.Values) controls.View {
	s := SettingOf(v)
	var set controls.Values
	if _, ok := Preset(v["preset"]); ok {
		set = valuesOf(s)
	}
	z, err := s.Size()
	if err != nil {
		return controls.View{Err: err, Set: set}
	}
	p, err := Chart(s)
	caption, fold := verdict(s, z.Total(), FitsHere(s))
	return controls.View{Plot: p, Err: err, Caption: caption,
		FoldSummary: "Ψ, what this machine allows, the formula behind each bar",
		Fold:        fmt.Sprintf("Ψ = %s parameters\n%s%s", units.Plain(float64(z.Params)), fold, z.Formula()), Set: set}
}

// verdict is the widget's one-line caption — the setting once, its bytes per device and whether it
// fits an H200 and this machine — and the lines for the fold: why this machine refuses it and the
// control to turn (here is FitsHere's answer).
func verdict(s memsize.Setting, total float64, here error) (caption, fold string) {
	var fits, fitsNot []string
	if total > H200Bytes() {
		fitsNot = append(fitsNot, "an H200 ("+units.Bytes(H200Bytes())+")")
	} else {
		fits = append(fits, "an H200")
	}
	if here != nil {
		fitsNot = append(fitsNot, "this machine (refused before allocating: see the fold)")
		fold = "here: " + strings.TrimPrefix(here.Error(), "sizing: ") + "\n"
	} else {
		fits = append(fits, "this machine")
	}
	v := ""
	if len(fits) > 0 {
		v = "fits " + strings.Join(fits, " and ")
	}
	if len(fitsNot) > 0 {
		if v != "" {
			v += "; "
		}
		v += "does not fit " + strings.Join(fitsNot, " nor ")
	}
	return fmt.Sprintf("%s: %s per device — %s (computed from the formula, pkg/model/memsize)", s, units.Bytes(total), v), fold
}

// Fits refuses, before anything is allocated, a setting whose step (the formula's total) is more
// than budget bytes, naming the bytes it needs and the control that would shrink it most.
func Fits(s memsize.Setting, budget uint64, where string) error {
	z, err := s.Size()
	if err != nil {
		return err
	}
	if budget == 0 || z.Total() <= float64(budget) {
		return nil
	}
	big := z.Parts[0]
	for _, p := range z.Parts {
		if p.Bytes > big.Bytes {
			big = p
		}
	}
	turn := map[string]string{
		memsize.PartParams:     "raise the ZeRO stage to 3 with more data-parallel devices, or train in bf16 mixed precision",
		memsize.PartGradients:  "raise the ZeRO stage to 2 or 3 with more data-parallel devices, or train in bf16 mixed precision",
		memsize.PartOptimizer:  "raise the ZeRO stage (1 shards the optimizer state) with more data-parallel devices, or use SGD",
		memsize.PartActivation: "lower the micro-batch (accumulate gradients instead), or turn recompute to selective or full",
		memsize.PartWorkspace:  "lower the micro-batch or the sequence length",
	}[big.Name]
	return fmt.Errorf("sizing: %s needs %s per device (formula) but %s allows %s — refused before allocating; the largest part is %s (%s): %s: %w",
		s, units.Bytes(z.Total()), where, units.Bytes(float64(budget)), big.Name, units.Bytes(big.Bytes), turn, workloads.ErrOutOfMemory)
}
