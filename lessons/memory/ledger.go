package memory

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// What a training step keeps in memory, from shapes: the ledger, bytes per parameter, what fits.

// Row is one line of a memory ledger.
type Row struct {
	Kind     string  // weights, gradients, …
	Bytes    int64   // in bytes
	PerParam float64 // bytes per parameter (0 for the batch-dependent rows)
	Why      string  // what it is
}

// Ledger is the memory of one training step of w, computed from its shapes, one row per kind.
func Ledger(w workloads.MLP) []Row {
	m, n := w.Memory(), float64(w.NumParams())
	per := func(b int64) float64 { return float64(b) / n }
	return []Row{
		{"weights", m.Parameters, per(m.Parameters), fmt.Sprintf("%d parameters × %d bytes (%s)", w.NumParams(), w.ParamType().Size(), w.ParamType())},
		{"gradients", m.Gradients, per(m.Gradients), "one per parameter, same dtype"},
		{"optimizer state", m.OptimizerState, per(m.OptimizerState), "Adam: first and second moment per parameter (plain SGD: none; SGD with momentum: one)"},
		{"activations", m.Activations, 0, fmt.Sprintf("every layer's output for %d samples, kept for the backward pass", w.Batch)},
		{"batch", m.Batch, 0, "the inputs and targets"},
	}
}

// LedgerTable formats Ledger for display.Table: header and rows.
func LedgerTable(w workloads.MLP) units.Table {
	var rows [][]string
	total := w.Memory().Total()
	for _, r := range Ledger(w) {
		per := "—"
		if r.PerParam > 0 {
			per = fmt.Sprintf("%.0f", r.PerParam)
		}
		rows = append(rows, []string{r.Kind, units.BytesFixed(float64(r.Bytes)), per,
			fmt.Sprintf("%.0f%%", 100*float64(r.Bytes)/float64(total)), r.Why})
	}
	rows = append(rows, []string{"total", units.BytesFixed(float64(total)), "", "100%", "computed from shapes (a formula, not a measurement)"})
	return units.Table{Origins: []units.Origin{units.Formula("bytes of each kind from the MLP's shapes")}, Header: []string{"kind", "bytes", "bytes/param", "share", "what it is"}, Rows: rows}
}

// PerParam is a bytes-per-parameter recipe for the model state (activations excluded).
type PerParam struct {
	Recipe string
	Parts  []Part
}

// Part is one component of a PerParam recipe.
type Part struct {
	Name  string
	Bytes int
}

// Total is the recipe's bytes per parameter.
func (p PerParam) Total() int {
	t := 0
	for _, x := range p.Parts {
		t += x.Bytes
	}
	return t
}

// Recipes are the usual bytes-per-parameter budgets of training: plain float32 SGD, SGD with
// momentum (one buffer per parameter), float32 Adam,
// and mixed-precision Adam (16-bit weights and gradients for the math, float32 master weights and
// moments), the "about 16 bytes per parameter" of the source text.
var Recipes = []PerParam{
	{"float32, SGD", []Part{{"f32 weights", 4}, {"f32 gradients", 4}}},
	{"float32, SGD with momentum", []Part{{"f32 weights", 4}, {"f32 gradients", 4}, {"f32 momentum", 4}}},
	{"float32, Adam", []Part{{"f32 weights", 4}, {"f32 gradients", 4}, {"f32 Adam m", 4}, {"f32 Adam v", 4}}},
	{"mixed precision (bf16/f16), Adam", []Part{{"16-bit weights", 2}, {"16-bit gradients", 2}, {"f32 master weights", 4}, {"f32 Adam m", 4}, {"f32 Adam v", 4}}},
}

// mixedAdam is the mixed-precision Adam recipe of Recipes: the source text's 16 bytes per parameter.
var mixedAdam = recipe("mixed precision (bf16/f16), Adam")

// RecipeTable formats Recipes for display.Table, with the state of a model of n parameters.
func RecipeTable(n float64) units.Table {
	var rows [][]string
	for _, r := range Recipes {
		var parts []string
		for _, p := range r.Parts {
			parts = append(parts, fmt.Sprintf("%s %d", p.Name, p.Bytes))
		}
		rows = append(rows, []string{r.Recipe, strings.Join(parts, " + "), strconv.Itoa(r.Total()),
			units.BytesFixed(float64(r.Total()) * n)})
	}
	return units.Table{Origins: []units.Origin{units.Formula("bytes per parameter of each recipe × the parameters")}, Header: []string{"recipe", "bytes per parameter", "total", fmt.Sprintf("state of %s parameters (formula)", units.Plain(n))}, Rows: rows,
		Notes: []string{ampNote()}}
}

// ampNote says where PyTorch's autocast stands among Recipes: the mixed row stores a 16-bit copy of
// the weights (DeepSpeed's and Megatron's layout); autocast stores none — parameters and gradients
// stay float32 and are cast per operation — so its state is the float32 Adam row's.
func ampNote() string {
	f32 := recipe("float32, Adam")
	same := "a different total"
	if f32.Total() == mixedAdam.Total() {
		same = "the same total"
	}
	return fmt.Sprintf("The mixed row is DeepSpeed's and Megatron's layout, with a stored 16-bit copy of the weights. PyTorch's autocast (lesson 05) stores none: parameters and gradients stay float32, cast per operation, so its state is the float32 Adam row's %d bytes, %s.",
		f32.Total(), same)
}

// recipe is the Recipes entry named name.
func recipe(name string) PerParam {
	for _, r := range Recipes {
		if r.Recipe == name {
			return r
		}
	}
	panic("memory: no recipe " + name)
}

// AdamRatio is optimizer state over weights for w: 2 for Adam ("Adam's state alone is twice the
// model size"), 0 for SGD.
func AdamRatio(w workloads.MLP) float64 {
	m := w.Memory()
	return float64(m.OptimizerState) / float64(m.Parameters)
}

// SourceResNet50 is the source text's example, as a ledger of its claim (not a measurement): about
// 100 MB of weights and "a few gigabytes" of activations at batch 64.
func SourceResNet50() units.Table {
	return units.Table{Origins: []units.Origin{units.Model("the source text's figures, quoted, not measured here")}, Header: []string{"ResNet-50, batch 64", "size", "where the number comes from"}, Rows: [][]string{
		{"weights", "≈ 100 MB", "the source text"},
		{"activations kept for backward", "a few GB", "the source text"},
		{"ratio", "activations ≫ weights (tens of ×)", "follows from the two lines above"},
	}}
}

// FitRow says how many parameters' training state fits in a GPU memory size at 16 bytes per
// parameter (mixed-precision Adam), before any activations.
type FitRow struct {
	GiB       float64
	MaxParams float64
}

// FitTable formats, for the memory sizes the source's FAQ names (and the datasheet H100/H200), the
// largest model whose mixed-precision Adam state alone would fit: a model, not advice.
func FitTable() units.Table {
	sizes := []struct {
		gb   float64
		note string
	}{{8, "source FAQ: most vision nets at modest batch"}, {24, "source FAQ: comfortable"}, {40, "source FAQ: LLM fine-tuning wants this or more"},
		{80, "H100 SXM (datasheet)"}, {141, "H200 SXM (datasheet)"}}
	bpp := float64(mixedAdam.Total())
	var rows [][]string
	for _, s := range sizes {
		rows = append(rows, []string{fmt.Sprintf("%.0f GB", s.gb), units.Plain(s.gb*1e9/bpp) + " parameters", s.note})
	}
	return units.Table{Origins: []units.Origin{units.Formula("memory ÷ bytes per parameter"), units.Model("the memory sizes: the source's FAQ and the H100/H200 datasheets")}, Header: []string{"GPU memory", fmt.Sprintf("largest model whose state fits at %.0f B/param (formula; activations need room too)", bpp), "where the size comes from"}, Rows: rows}
}
