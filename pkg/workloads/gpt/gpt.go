package gpt

import (
	"errors"
	"fmt"
	"github.com/gpu-course/whygpu/pkg/workloads"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/zoo/transformer"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// GPT is a small decoder-only transformer language model, built from GoMLX's own layers
// (ml/zoo/transformer: token embedding, RoPE, causal multi-head attention from ml/layers/attention,
// a GELU feed-forward block, layer norms, an output projection), trained with Adam on next-token
// cross-entropy. Tokens are characters (Vocab of them).
//
// FLOPs count the matrix products, exactly as the graph computes them. Per token and layer the
// forward pass does 2·d·(3d) for the query/key/value projections, 2·d·d for the attention output,
// 2·d·f + 2·f·d for the feed-forward block (f = FFN), 2·s·d for the attention scores q·kᵀ (GoMLX
// computes the full s×s score matrix and masks it, so every position pays s, not its own index) and
// 2·s·d for the weighted sum of values; the output layer adds 2·d·V. The backward pass computes
// two products per forward product (the gradients w.r.t. both operands — all are needed, since the
// embeddings are trained), so a training step is exactly 3 × forward:
//
//	step FLOPs = T·(6·N + 12·L·s·d),   N = L·(4d² + 2d·f) + d·V,   T = Batch·Context
//
// N is the parameters that enter a matrix product (the "N" of the 6·N·T rule; biases, layer norms
// and the embedding table, a gather, are not multiplied). The 12·L·s·d term is attention's share:
// it grows with the sequence length while 6·N does not.
type GPT struct {
	Vocab   int     // distinct tokens (characters)
	Context int     // sequence length s the model is trained on (the most it can read)
	Batch   int     // sequences per step
	Embed   int     // model width d
	Layers  int     // transformer blocks L
	Heads   int     // attention heads (Embed must be a multiple)
	FFN     int     // feed-forward width f; 0 picks 4·Embed
	LR      float64 // Adam's learning rate; 0 picks 3e-3
	Seed    int64   // parameter-initialization seed
}

// Name returns "gpt-train".
func (c GPT) Name() string { return "gpt-train" }

// String describes it, e.g. "gpt L=2 d=64 heads=4 s=64 batch=16 vocab=96".
func (c GPT) String() string {
	return fmt.Sprintf("gpt L=%d d=%d heads=%d s=%d batch=%d vocab=%d", c.Layers, c.Embed, c.Heads, c.Context, c.Batch, c.Vocab)
}

// FFNWidth is FFN, or 4·Embed when FFN is 0.
func (c GPT) FFNWidth() int {
	if c.FFN > 0 {
		return c.FFN
	}
	return 4 * c.Embed
}

// LearningRate is LR, or 3e-3 when LR is 0.
func (c GPT) LearningRate() float64 {
	if c.LR > 0 {
		return c.LR
	}
	return 3e-3
}

// Validate reports impossible configurations.
func (c GPT) Validate() error {
	switch {
	case c.Vocab < 2 || c.Context < 2 || c.Batch < 1 || c.Embed < 1 || c.Layers < 1 || c.Heads < 1:
		return fmt.Errorf("workloads: %s: vocab and context must be ≥ 2, batch, embed, layers and heads ≥ 1", c)
	case c.Embed%c.Heads != 0:
		return fmt.Errorf("workloads: %s: the width %d is not a multiple of %d heads", c, c.Embed, c.Heads)
	}
	return nil
}

// Tokens is the tokens per step, T = Batch·Context.
func (c GPT) Tokens() int { return c.Batch * c.Context }

// MatmulParams is N = L·(4d² + 2d·f) + d·V: the parameters that enter a matrix product.
func (c GPT) MatmulParams() int64 {
	d, f := int64(c.Embed), int64(c.FFNWidth())
	return int64(c.Layers)*(4*d*d+2*d*f) + d*int64(c.Vocab)
}

// NumParams is every trainable parameter: the matrices (MatmulParams), the embedding table V·d, and
// per layer the biases of the four attention projections (4d) and of the feed-forward block (f + d)
// and two layer norms with a gain and an offset each (4d).
func (c GPT) NumParams() int64 {
	d, f := int64(c.Embed), int64(c.FFNWidth())
	return c.MatmulParams() + d*int64(c.Vocab) + int64(c.Layers)*(4*d+f+d+4*d)
}

// SixNT is the rule of thumb 6·N·T for one step (N = MatmulParams).
func (c GPT) SixNT() float64 { return 6 * float64(c.MatmulParams()) * float64(c.Tokens()) }

// AttentionFLOPs is the attention-score and value products of one step, forward and backward:
// 12·L·s·d·T.
func (c GPT) AttentionFLOPs() float64 {
	return 12 * float64(c.Layers) * float64(c.Context) * float64(c.Embed) * float64(c.Tokens())
}

// FLOPs is one training step's matrix-product FLOPs: SixNT + AttentionFLOPs (see the type's doc).
func (c GPT) FLOPs() float64 { return c.SixNT() + c.AttentionFLOPs() }

// AttentionShare is AttentionFLOPs / FLOPs: 12·L·s·d / (6·N + 12·L·s·d).
func (c GPT) AttentionShare() float64 { return c.AttentionFLOPs() / c.FLOPs() }

// GPTMatMul is one matrix product of the forward pass: Count products of M×K by K×N.
type GPTMatMul struct {
	What    string // e.g. "attention scores"
	Count   int    // how many such products (layers × batch × heads …)
	M, K, N int
}

// FLOPs is 2·M·K·N·Count.
func (m GPTMatMul) FLOPs() float64 {
	return 2 * float64(m.M) * float64(m.K) * float64(m.N) * float64(m.Count)
}

// ForwardMatMuls lists the forward pass's matrix products with their shapes, class by class: an
// independent count of the FLOPs (tests check 3 × their sum equals FLOPs).
func (c GPT) ForwardMatMuls() []GPTMatMul {
	d, f, s, b, l, h := c.Embed, c.FFNWidth(), c.Context, c.Batch, c.Layers, c.Heads
	hd := d / h
	t := b * s
	return []GPTMatMul{
		{What: "query, key, value projections", Count: 3 * l, M: t, K: d, N: d},
		{What: "attention output projection", Count: l, M: t, K: d, N: d},
		{What: "feed-forward up", Count: l, M: t, K: d, N: f},
		{What: "feed-forward down", Count: l, M: t, K: f, N: d},
		{What: "attention scores q·kᵀ", Count: l * b * h, M: s, K: hd, N: s},
		{What: "attention-weighted values", Count: l * b * h, M: s, K: s, N: hd},
		{What: "output layer (logits)", Count: 1, M: t, K: d, N: c.Vocab},
	}
}

// GPTMemory is what a GPT training step keeps, in bytes (float32).
type GPTMemory struct {
	Parameters, Gradients, AdamState int64
}

// Memory is NumParams × 4 bytes for the parameters and for the gradients, twice that for Adam's two
// moments.
func (c GPT) Memory() GPTMemory {
	p := c.NumParams() * 4
	return GPTMemory{Parameters: p, Gradients: p, AdamState: 2 * p}
}

// activationBytes estimates what the backward pass keeps per step: per layer and token about
// 16·d + 2·f values plus the heads' s×s scores and probabilities, and the logits twice.
func (c GPT) activationBytes() float64 {
	t := float64(c.Tokens())
	perLayer := t*float64(16*c.Embed+2*c.FFNWidth()) + 2*float64(c.Batch*c.Heads)*float64(c.Context)*float64(c.Context)
	return 4 * (float64(c.Layers)*perLayer + 2*t*float64(c.Vocab))
}

// ErrContextTooLong is wrapped by the error of a prompt or sequence longer than the model was built
// for.
var ErrContextTooLong = errors.New("longer than the model's context")

// Bytes is a lower bound on one step's memory traffic: the parameters read and written, the
// gradients written and read, Adam's two moments read and written (4 × 4 bytes × 2 × NumParams in
// all), and the activations written forward and read back (twice activationBytes).
func (c GPT) Bytes() float64 {
	return 32*float64(c.NumParams()) + 2*c.activationBytes()
}

// transformer builds the model under scope: post-norm blocks with RoPE positions and a causal mask.
func (c GPT) transformer(scope *model.Scope) *transformer.Model {
	return transformer.New(scope).
		WithVocabSize(c.Vocab).WithEmbedDim(c.Embed).WithNumLayers(c.Layers).
		WithNumHeads(c.Heads).WithHeadDim(c.Embed / c.Heads).WithFFNDim(c.FFNWidth()).
		WithMaxPosEmbed(c.Context).WithRoPE(10000).WithCausalMask(true).
		WithActivation(activation.TypeGelu).WithNormalization(layers.NormalizationLayerNorm)
}

// Logits is the model a GPT trainer trains: the transformer under scope "gpt" applied to a batch of
// token windows, the next-token logits at every position.
func (c GPT) Logits(scope *model.Scope, tokens *graph.Node) *graph.Node {
	return c.transformer(scope.At("gpt")).Logits(tokens, transformer.CallOptions{})
}

// NextToken is the sampler's graph: the most likely next token at position pos of a 1×Context window
// (positions after it are masked out by the causal mask, so their padding does not matter).
func (c GPT) NextToken(scope *model.Scope, tokens, pos *graph.Node) *graph.Node {
	logits := graph.Reshape(c.Logits(scope, tokens), c.Context, c.Vocab)
	return graph.ArgMax(graph.DynamicSlice(logits, []*graph.Node{pos, graph.ScalarZero(pos.Graph(), pos.DType())}, []int{1, c.Vocab}), -1, dtypes.Int32)
}

// CheckStepFits refuses, with an ErrOutOfMemory error, a training step that would not fit in dev's
// memory: parameters, gradients and Adam's moments (Memory) plus the activations the backward pass
// keeps.
func (c GPT) CheckStepFits(dev *devices.Device) error {
	m := c.Memory()
	return workloads.CheckFits(dev, c.String()+" training step", float64(m.Parameters+m.Gradients+m.AdamState)+c.activationBytes(), 0)
}
