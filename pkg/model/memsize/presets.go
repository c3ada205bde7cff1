package memsize

import "github.com/gpu-course/whygpu/pkg/workloads/corpus"

// Preset is a named setting for the sizing widget, with where its shape comes from.
type Preset struct {
	Setting
	Source string
}

// Presets are the widget's starting points: lesson 09's GPT (the course's own, which compiles
// here), GPT-2 small, a 1.3B model (GPT-3 XL's shape) and a 7B model (GPT-3 6.7B's shape), each
// with the course GPT's architecture (RoPE, no position table; GPT-2's and GPT-3's learned position
// tables are left out, ≈ 0.8 M and 4 M parameters).
func Presets() []Preset {
	v := corpus.NewTokenizer().Size()
	return []Preset{
		{Setting{Model: Model{Name: "lesson 09's GPT", Layers: 2, Width: 64, Heads: 4, Seq: 64, Vocab: v}, MicroBatch: 16,
			Precision: FP32, Optimizer: Adam}, "lessons/smallgpt.Config at the laptop scale (characters of the course corpus)"},
		{Setting{Model: Model{Name: "GPT-2 small", Layers: 12, Width: 768, Heads: 12, Seq: 1024, Vocab: 50257, Tied: true}, MicroBatch: 8,
			Precision: BF16Mixed, Optimizer: Adam}, "Radford et al. 2019, GPT-2 (124 M parameters; tied embeddings)"},
		{Setting{Model: Model{Name: "1.3B (GPT-3 XL shape)", Layers: 24, Width: 2048, Heads: 16, Seq: 2048, Vocab: 50257, Tied: true}, MicroBatch: 4,
			Precision: BF16Mixed, Optimizer: Adam}, "Brown et al. 2020, GPT-3 table 2.1: L=24, d=2048, s=2048; the table lists 24 heads of 128 (3,072 wide, more than d), so here 16 heads of 128, which tile d=2048 (24 would add half again to the attention scores' activations)"},
		{Setting{Model: Model{Name: "7B (GPT-3 6.7B shape)", Layers: 32, Width: 4096, Heads: 32, Seq: 2048, Vocab: 50257, Tied: true}, MicroBatch: 1,
			Precision: BF16Mixed, Optimizer: Adam, Recompute: Full, ZeRO: 3, DP: 8}, "Brown et al. 2020, GPT-3 table 2.1: L=32, d=4096, 32 heads, s=2048"},
	}
}

// PresetNamed returns the preset called name.
func PresetNamed(name string) (Preset, bool) {
	for _, p := range Presets() {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}
