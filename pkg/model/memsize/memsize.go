package memsize

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Precision is the recipe: which type the weights, gradients and activations are kept in.
type Precision int

const (
	FP32      Precision = iota // everything in float32 (what the course's GPT compiles)
	BF16Mixed                  // bfloat16 weights, gradients and activations; fp32 master weights in the optimizer
)

// String is "fp32" or "bf16 mixed".
func (p Precision) String() string {
	if p == BF16Mixed {
		return "bf16 mixed"
	}
	return "fp32"
}

// Optimizer is the update rule.
type Optimizer int

const (
	SGD  Optimizer = iota // plain SGD: no state (under mixed precision, the fp32 master weights)
	Adam                  // two moments per parameter
)

// String is "SGD" or "Adam".
func (o Optimizer) String() string {
	if o == Adam {
		return "Adam"
	}
	return "SGD"
}

// Recompute is what the forward pass keeps for the backward pass.
type Recompute int

const (
	NoRecompute Recompute = iota // keep every activation
	Selective                    // recompute the attention softmax (drop the a·s² term)
	Full                         // keep each layer's input, recompute the layer in the backward pass
)

// String is "none", "selective" or "full".
func (r Recompute) String() string {
	return [...]string{"none", "selective", "full"}[r]
}

// Model is a decoder-only transformer's shape.
type Model struct {
	Name   string
	Layers int  // L
	Width  int  // d
	Heads  int  // a (Width must be a multiple)
	Seq    int  // s, the sequence length
	Vocab  int  // V
	FFN    int  // f; 0 means 4·Width
	Tied   bool // the output layer reuses the embedding table
}

// FFNWidth is FFN, or 4·Width when FFN is 0.
func (m Model) FFNWidth() int {
	if m.FFN > 0 {
		return m.FFN
	}
	return 4 * m.Width
}

// Params is Ψ (see the package doc).
func (m Model) Params() int64 {
	L, d, f, v := int64(m.Layers), int64(m.Width), int64(m.FFNWidth()), int64(m.Vocab)
	emb := 2 * d * v
	if m.Tied {
		emb = d * v
	}
	return L*(4*d*d+2*d*f) + L*(9*d+f) + emb
}

// layerParams is one layer's parameters.
func (m Model) layerParams() int64 {
	d, f := int64(m.Width), int64(m.FFNWidth())
	return 4*d*d + 2*d*f + 9*d + f
}

// Setting is one step to size: a model, a micro-batch per device and the training recipe.
type Setting struct {
	Model
	MicroBatch int // b, sequences per device per step
	Precision  Precision
	Optimizer  Optimizer
	Recompute  Recompute
	ZeRO       int // stage 0–3
	DP         int // data-parallel degree N_d (devices); 0 means 1
}

// Limits of a Setting, checked by Validate (far above any real model, so that the arithmetic
// cannot overflow).
const (
	MaxLayers = 1024
	MaxWidth  = 1 << 17
	MaxSeq    = 1 << 20
	MaxVocab  = 1 << 22
	MaxBatch  = 1 << 16
	MaxDP     = 1 << 20
)

// ErrSetting is wrapped by every error of Validate.
var ErrSetting = errors.New("memsize: setting refused")

// Validate says which control is out of range.
func (s Setting) Validate() error {
	check := func(name string, v, lo, hi int) error {
		if v < lo || v > hi {
			return fmt.Errorf("%w: %s %d is out of range: use %d…%d", ErrSetting, name, v, lo, hi)
		}
		return nil
	}
	for _, c := range []struct {
		name      string
		v, lo, hi int
	}{{"layers", s.Layers, 1, MaxLayers}, {"width", s.Width, 1, MaxWidth}, {"heads", s.Heads, 1, MaxWidth},
		{"sequence length", s.Seq, 1, MaxSeq}, {"vocabulary", s.Vocab, 1, MaxVocab}, {"feed-forward width", s.FFN, 0, 8 * MaxWidth},
		{"micro-batch", s.MicroBatch, 1, MaxBatch}, {"ZeRO stage", s.ZeRO, 0, 3}, {"data-parallel degree", s.DP, 0, MaxDP},
		{"precision", int(s.Precision), 0, 1}, {"optimizer", int(s.Optimizer), 0, 1}, {"recompute", int(s.Recompute), 0, 2}} {
		if err := check(c.name, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	if s.Width%s.Heads != 0 {
		return fmt.Errorf("%w: width %d is not a multiple of %d heads", ErrSetting, s.Width, s.Heads)
	}
	return nil
}

// Devices is DP, or 1 when DP is 0.
func (s Setting) Devices() int { return max(s.DP, 1) }

// String is one line: "GPT-2 small, b=8, bf16 mixed, Adam, recompute none, ZeRO-0 × 1".
func (s Setting) String() string {
	name := s.Name
	if name == "" {
		name = fmt.Sprintf("L=%d d=%d a=%d s=%d V=%d", s.Layers, s.Width, s.Heads, s.Seq, s.Vocab)
	}
	return fmt.Sprintf("%s, b=%d, %s, %s, recompute %s, ZeRO-%d × %d", name, s.MicroBatch, s.Precision, s.Optimizer, s.Recompute, s.ZeRO, s.Devices())
}

// Part is one kind of memory on one device.
type Part struct {
	Name    string  // "parameters", "gradients", "optimizer state", "activations", "workspace"
	Bytes   float64 // per device
	Formula string  // how Bytes was computed, symbols then numbers
}

// Parts names, in the order Size returns them.
const (
	PartParams     = "parameters"
	PartGradients  = "gradients"
	PartOptimizer  = "optimizer state"
	PartActivation = "activations"
	PartWorkspace  = "workspace"
)

// Sizing is the per-device memory of one Setting.
type Sizing struct {
	Setting Setting
	Params  int64   // Ψ
	Parts   [5]Part // parameters, gradients, optimizer state, activations, workspace
}

// Total is the sum of the parts, per device.
func (z Sizing) Total() float64 {
	t := 0.0
	for _, p := range z.Parts {
		t += p.Bytes
	}
	return t
}

// Part returns the part called name (zero Part if none).
func (z Sizing) Part(name string) Part {
	for _, p := range z.Parts {
		if p.Name == name {
			return p
		}
	}
	return Part{}
}

// bytesPer are the bytes per parameter of the weights, gradients and optimizer state.
func (s Setting) bytesPer() (w, g, o float64, oText string) {
	switch {
	case s.Precision == FP32 && s.Optimizer == Adam:
		return 4, 4, 8, "8 (fp32 m, v)"
	case s.Precision == FP32:
		return 4, 4, 0, "0 (plain SGD keeps no state)"
	case s.Optimizer == Adam:
		return 2, 2, 12, "12 (fp32 master weights, m, v)"
	default:
		return 2, 2, 4, "4 (fp32 master weights)"
	}
}

// actBytes is the bytes of one activation value: 4 in fp32, 2 under bf16 mixed precision.
func (s Setting) actBytes() float64 {
	if s.Precision == BF16Mixed {
		return 2
	}
	return 4
}

// Size computes the per-device memory of s.
func (s Setting) Size() (Sizing, error) {
	if err := s.Validate(); err != nil {
		return Sizing{}, err
	}
	n := s.Devices()
	psi := s.Params()
	P := float64(psi)
	w, g, _, oText := s.bytesPer()
	shard := func(stage int, what string) string {
		if s.ZeRO >= stage && n > 1 {
			return fmt.Sprintf(" / N_d (ZeRO-%d shards %s over %d devices)", s.ZeRO, what, n)
		}
		return ""
	}
	pt, gt, ot := shard(3, "the parameters"), shard(2, "the gradients"), shard(1, "the optimizer state")
	psiText := fmt.Sprintf("Ψ = %s parameters", units.Plain(P))

	b, sq, d, f, a, v, L := float64(s.MicroBatch), float64(s.Seq), float64(s.Width), float64(s.FFNWidth()), float64(s.Heads), float64(s.Vocab), float64(s.Layers)
	ab := s.actBytes()
	full := b * (sq*(8*d+2*f) + a*sq*sq) // one layer, every value kept
	var perLayer, layersBytes float64
	var actText string
	switch s.Recompute {
	case NoRecompute:
		perLayer = full
		layersBytes = L * perLayer * ab
		actText = fmt.Sprintf("L·b·(s·(8d+2f) + a·s²)·%g B = %g·%g·(%g·(8·%g+2·%g) + %g·%g²)·%g", ab, L, b, sq, d, f, a, sq, ab)
	case Selective:
		perLayer = b * sq * (8*d + 2*f)
		layersBytes = L * perLayer * ab
		actText = fmt.Sprintf("L·b·s·(8d+2f)·%g B (softmax recomputed) = %g·%g·%g·(8·%g+2·%g)·%g", ab, L, b, sq, d, f, ab)
	case Full:
		layersBytes = (L*b*sq*d + full) * ab
		actText = fmt.Sprintf("(L·b·s·d + one layer's b·(s·(8d+2f) + a·s²))·%g B (layer inputs kept, one layer recomputed at a time)", ab)
	}
	logits := b * sq * v * 4
	act := layersBytes + logits
	actText += fmt.Sprintf(" + logits b·s·V·4 B (fp32 for the loss) = %s", units.SI(act, "B"))

	work := logits
	workText := "gradient of the logits b·s·V·4 B"
	if s.ZeRO == 3 && n > 1 {
		work += float64(s.layerParams()) * w
		workText += fmt.Sprintf(" + one layer's parameters gathered from the other devices (%s × %g B)", units.Plain(float64(s.layerParams())), w)
	}
	workText += " = " + units.SI(work, "B")

	pb, gb, ob := s.StateBytes(P)
	z := Sizing{Setting: s, Params: psi}
	z.Parts[0] = Part{PartParams, pb, fmt.Sprintf("%g B × Ψ%s; %s → %s", w, pt, psiText, units.SI(pb, "B"))}
	z.Parts[1] = Part{PartGradients, gb, fmt.Sprintf("%g B × Ψ%s → %s", g, gt, units.SI(gb, "B"))}
	z.Parts[2] = Part{PartOptimizer, ob, fmt.Sprintf("%s B × Ψ%s → %s", oText, ot, units.SI(ob, "B"))}
	z.Parts[3] = Part{PartActivation, act, actText}
	z.Parts[4] = Part{PartWorkspace, work, workText}
	return z, nil
}

// StateBytes is the model state of psi parameters on one device: weights, gradients and optimizer
// state, each divided by the data-parallel degree when the ZeRO stage shards it (1: the optimizer
// state, 2: and the gradients, 3: and the weights).
func (s Setting) StateBytes(psi float64) (weights, gradients, optimizer float64) {
	w, g, o, _ := s.bytesPer()
	n := float64(s.Devices())
	div := func(stage int) float64 {
		if s.ZeRO >= stage {
			return n
		}
		return 1
	}
	return psi * w / div(3), psi * g / div(2), psi * o / div(1)
}

// PerParam is the model-state bytes per parameter on one device without sharding: weights +
// gradients + optimizer state (16 for mixed-precision Adam).
func (s Setting) PerParam() float64 {
	w, g, o, _ := s.bytesPer()
	return w + g + o
}

// Formula is the sizing's formulas, one line per part.
func (z Sizing) Formula() string {
	var lines []string
	for _, p := range z.Parts {
		lines = append(lines, p.Name+": "+p.Formula)
	}
	return strings.Join(lines, "\n")
}
