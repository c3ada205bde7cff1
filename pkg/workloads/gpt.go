package workloads

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/ml/train/loss"
	"github.com/gomlx/gomlx/ml/train/optimizer"
	"github.com/gomlx/gomlx/ml/zoo/transformer"
	"github.com/gomlx/gomlx/support/exceptions"

	"github.com/gpu-course/whygpu/pkg/devices"
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

func (c GPT) lr() float64 {
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

// GPTTrainer trains a GPT on one device: parameters and Adam's moments live in a GoMLX model.Store
// and stay on the device between steps.
type GPTTrainer struct {
	Config  GPT
	dev     *devices.Device
	store   *model.Store
	trainer *train.Trainer
	logits  *model.Exec
	steps   int
	// Compile is how long the first step took (graph building and XLA compilation included).
	Compile time.Duration
}

// transformer builds the model under scope: post-norm blocks with RoPE positions and a causal mask.
func (c GPT) transformer(scope *model.Scope) *transformer.Model {
	return transformer.New(scope).
		WithVocabSize(c.Vocab).WithEmbedDim(c.Embed).WithNumLayers(c.Layers).
		WithNumHeads(c.Heads).WithHeadDim(c.Embed / c.Heads).WithFFNDim(c.FFNWidth()).
		WithMaxPosEmbed(c.Context).WithRoPE(10000).WithCausalMask(true).
		WithActivation(activation.TypeGelu).WithNormalization(layers.NormalizationLayerNorm)
}

// NewGPTTrainer checks the configuration and that a step fits in dev's memory, and prepares the
// model (its variables are created and compiled on the first Step).
func NewGPTTrainer(dev *devices.Device, c GPT) (*GPTTrainer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m := c.Memory()
	if err := checkFits(dev, c.String()+" training step", float64(m.Parameters+m.Gradients+m.AdamState)+c.activationBytes(), 0); err != nil {
		return nil, err
	}
	return newGPTTrainer(dev, c)
}

// newGPTTrainer builds the trainer of a valid c without checking that a step fits.
func newGPTTrainer(dev *devices.Device, c GPT) (*GPTTrainer, error) {
	store := model.NewStore()
	if err := store.SetRNGStateFromSeed(c.Seed); err != nil {
		return nil, err
	}
	modelFn := func(scope *model.Scope, tokens *graph.Node) *graph.Node {
		return c.transformer(scope.At("gpt")).Logits(tokens, transformer.CallOptions{})
	}
	opt := optimizer.Adam().LearningRate(c.lr()).Done()
	t := &GPTTrainer{Config: c, dev: dev, store: store}
	err := exceptions.TryCatch[error](func() {
		t.trainer = train.NewTrainer(dev.Backend(), store, modelFn, loss.SparseCategoricalCrossEntropyLogits, opt, nil, nil)
	})
	if err != nil {
		return nil, deviceErr(err, "building %s", c)
	}
	return t, nil
}

// Steps is how many steps have run.
func (t *GPTTrainer) Steps() int { return t.steps }

// Step runs one training step on Batch×Context input tokens and their next-token targets (flat,
// row-major) and returns the mean cross-entropy loss in nats per token, read back from the device.
func (t *GPTTrainer) Step(inputs, targets []int32) (float64, error) {
	c := t.Config
	if len(inputs) != c.Tokens() || len(targets) != c.Tokens() {
		return 0, fmt.Errorf("workloads: %s step needs %d input and target tokens, got %d and %d", c, c.Tokens(), len(inputs), len(targets))
	}
	start := time.Now()
	batch := train.Batch{
		Inputs: []*tensors.Tensor{tensors.FromFlatDataAndDimensions(inputs, c.Batch, c.Context)},
		Labels: []*tensors.Tensor{tensors.FromFlatDataAndDimensions(targets, c.Batch, c.Context, 1)},
	}
	metrics, err := t.trainer.TrainStep(batch)
	if err != nil {
		return 0, deviceErr(err, "%s step", c)
	}
	var lossValue float64
	err = exceptions.TryCatch[error](func() {
		lossValue = float64(tensors.ToScalar[float32](metrics[0]))
	})
	for _, m := range metrics {
		_ = m.FinalizeAll()
	}
	if err != nil {
		return 0, deviceErr(err, "%s reading the loss", c)
	}
	if t.steps == 0 {
		t.Compile = time.Since(start)
	}
	t.steps++
	return lossValue, nil
}

// StoredParams is the number of trainable parameters the model actually created (GoMLX's count of
// the variables under the model's scope), 0 before the first step.
func (t *GPTTrainer) StoredParams() int64 {
	return int64(t.store.Scope("/gpt").NumParameters())
}

// Greedy continues prompt by n tokens, each the most likely next token given the last Context
// tokens. The prompt must be 1…Context tokens long.
func (t *GPTTrainer) Greedy(prompt []int32, n int) ([]int32, error) {
	c := t.Config
	if len(prompt) == 0 {
		return nil, fmt.Errorf("workloads: Greedy needs a prompt of at least one token")
	}
	if len(prompt) > c.Context {
		return nil, fmt.Errorf("workloads: a prompt of %d tokens is %w of %d tokens (it was trained on %d-token windows)",
			len(prompt), ErrContextTooLong, c.Context, c.Context)
	}
	if t.steps == 0 {
		return nil, fmt.Errorf("workloads: train the model first (no step has run)")
	}
	if t.logits == nil {
		// The logits at one position of a 1×Context window (positions after it are masked out by
		// the causal mask, so their padding does not matter).
		exec, err := model.NewExec(t.dev.Backend(), t.store, func(scope *model.Scope, tokens, pos *graph.Node) *graph.Node {
			logits := c.transformer(scope.At("gpt")).Logits(tokens, transformer.CallOptions{})
			logits = graph.Reshape(logits, c.Context, c.Vocab)
			return graph.ArgMax(graph.DynamicSlice(logits, []*graph.Node{pos, graph.ScalarZero(pos.Graph(), pos.DType())}, []int{1, c.Vocab}), -1, dtypes.Int32)
		})
		if err != nil {
			return nil, deviceErr(err, "compiling the sampler")
		}
		t.logits = exec
	}
	seq := append([]int32(nil), prompt...)
	window := make([]int32, c.Context)
	for range n {
		start := max(0, len(seq)-c.Context)
		copy(window, seq[start:])
		last := len(seq) - start - 1
		for i := last + 1; i < c.Context; i++ {
			window[i] = 0
		}
		out, err := t.logits.Exec(tensors.FromFlatDataAndDimensions(window, 1, c.Context), int32(last))
		if err != nil {
			return nil, deviceErr(err, "sampling")
		}
		flat, err := tensors.CopyFlatData[int32](out[0])
		if err != nil || len(flat) == 0 {
			return nil, deviceErr(err, "reading a sample")
		}
		seq = append(seq, flat[0])
	}
	return seq[len(prompt):], nil
}

// TextBatches cuts random windows out of a token sequence: each batch is Batch windows of Context
// tokens and the same windows shifted by one as targets.
type TextBatches struct {
	tokens []int32
	c      GPT
	rng    *rand.Rand
}

// NewTextBatches draws batches for c from tokens (at least Context+1 of them) with a seeded source.
func NewTextBatches(tokens []int32, c GPT, seed uint64) (*TextBatches, error) {
	if len(tokens) <= c.Context {
		return nil, fmt.Errorf("workloads: a text of %d tokens is too short for %d-token windows", len(tokens), c.Context)
	}
	return &TextBatches{tokens: tokens, c: c, rng: rand.New(rand.NewPCG(seed, 0x5eed))}, nil
}

// Next returns the next batch's inputs and targets.
func (b *TextBatches) Next() (inputs, targets []int32) {
	s := b.c.Context
	inputs = make([]int32, 0, b.c.Tokens())
	targets = make([]int32, 0, b.c.Tokens())
	for range b.c.Batch {
		at := b.rng.IntN(len(b.tokens) - s)
		inputs = append(inputs, b.tokens[at:at+s]...)
		targets = append(targets, b.tokens[at+1:at+s+1]...)
	}
	return inputs, targets
}

// StateBytes is what GoMLX actually allocated for the model's state, read from its variable store
// after the first step: the model's parameters (everything under the model's scope) and the
// optimizer's (Adam's moments, its step counter and learning rate). Both 0 before the first step.
func (t *GPTTrainer) StateBytes() (params, optimizer int64) {
	for v := range t.store.IterVariables() {
		b := v.Shape().ByteSize()
		if strings.HasPrefix(v.Scope(), "/gpt") {
			params += int64(b)
		} else if v.Scope() != "/" || !strings.Contains(v.Name(), "rng") {
			optimizer += int64(b)
		}
	}
	return params, optimizer
}

// Bytes is a lower bound on one step's memory traffic: the parameters read and written, the
// gradients written and read, Adam's two moments read and written (4 × 4 bytes × 2 × NumParams in
// all), and the activations written forward and read back (twice activationBytes).
func (c GPT) Bytes() float64 {
	return 32*float64(c.NumParams()) + 2*c.activationBytes()
}
