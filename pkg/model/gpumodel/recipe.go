package gpumodel

import (
	"fmt"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// Recipe is how a GPT training step is run, the part of a step's cost its shapes do not fix: the
// bytes per element of each class of tensor, the attention kernel and the optimizer's kernels.
// Every byte the step's memory-bound kernels move comes from it, layer by layer (GPTRecipeStep):
// none is a leftover of a formula.
type Recipe struct {
	Name string
	// Matmul is the peak the GEMMs run at: "bfloat16", "tf32" (XLA's float32 default), "float32".
	Matmul string
	// Operand is the bytes per element of a GEMM's operands and results and of the activations
	// between GEMMs (GELU's input and output, attention's q, k, v and output): 2 in bf16, 4 in float32.
	Operand float64
	// Residual is the bytes per element of the residual stream and of layer norm's input and
	// output: 4 under PyTorch's bf16 autocast, which keeps them in float32 (only the GEMMs run in bf16).
	Residual float64
	// Flash: attention as one fused kernel that never writes the s×s scores to memory
	// (FlashAttention); false: the scores and probabilities are materialized in memory.
	Flash bool
	// FusedOptimizer: Adam's update as one kernel over all parameters (PyTorch fused=True, llm.c);
	// false: about ten elementwise kernels per parameter tensor, each reading and writing memory.
	FusedOptimizer bool
	// MasterWeights: the parameters are float32 and are cast to the GEMM dtype once per forward
	// pass (read 4, write 2 bytes per parameter), as autocast does.
	MasterWeights bool
}

// The recipes the course models.
var (
	// BF16Autocast is how GPT-class models are trained in PyTorch today (MPT's llm-foundry,
	// nanoGPT and its descendants): bf16 autocast over float32 master weights, FlashAttention,
	// a fused AdamW.
	BF16Autocast = Recipe{Name: "bf16 autocast over float32 master weights, flash attention, fused AdamW",
		Matmul: "bfloat16", Operand: 2, Residual: 4, Flash: true, FusedOptimizer: true, MasterWeights: true}
	// Float32XLA is the course's own GoMLX step as XLA runs it on a GPU: float32 tensors, TF32
	// matrix products (XLA's default), attention scores materialized, Adam as elementwise kernels.
	Float32XLA = Recipe{Name: "float32 with TF32 matmuls (XLA's default), materialized attention, unfused Adam",
		Matmul: "tf32", Operand: 4, Residual: 4, Flash: false, FusedOptimizer: false}
)

// AdamBytesPerParam is what one fused Adam(W) update moves per float32 parameter: it reads the
// parameter, its gradient and the two moments and writes the parameter and the moments, 7 × 4 bytes
// (lesson 06's 28 bytes per parameter).
const AdamBytesPerParam = 28

// unfusedAdam is the unfused update's traffic relative to the fused one and its kernels per
// parameter tensor: each of its ~10 elementwise operations reads and writes whole tensors, about
// twice the fused traffic once caches catch part of it — the course's assumption.
const (
	unfusedAdamTraffic = 2.0
	unfusedAdamKernels = 10
)

// paramTensorsPerLayer is the parameter tensors of one GPT layer (q, k, v, output projection, two
// feed-forward matrices, their biases, two norms' scale and shift): the unfused optimizer's kernel
// count is per tensor.
const paramTensorsPerLayer = 16

// GPTRecipeStep is the Work of one training step (one micro-batch: forward, backward, and the
// optimizer update when update is true) of c run with recipe r, kernel by kernel: per layer the
// norms, residual adds, GELU and attention with their own bytes from r's dtypes, the GEMMs in r's
// precision, then the output layer and cross-entropy, then the optimizer over the parameters this
// GPU updates (params; ≤ 0: all of c's). Causal attention computes half the s×s products when the
// kernel is fused (flash), all of them when the scores are materialized.
func GPTRecipeStep(c gpt.GPT, r Recipe, params float64, update bool) Work {
	t, d, f, s, v := float64(c.Tokens()), c.Embed, c.FFNWidth(), c.Context, c.Vocab
	T := c.Tokens()
	bh := c.Batch * c.Heads
	hd := max(1, d/c.Heads)
	O, R := r.Operand, r.Residual
	var seq []Kernel
	add := func(name, class string, flops, bytes float64, gemms ...GEMM) {
		for _, g := range gemms {
			flops += g.FLOPs()
		}
		seq = append(seq, Kernel{Name: name, Class: class, FLOPs: flops, Bytes: bytes, GEMMs: gemms})
	}
	gemm := func(name string, g GEMM) {
		add(name, ClassGEMM, 0, g.Bytes(O), g)
	}
	// linear adds a GEMM's forward product; its backward adds the two gradient products.
	type lin struct {
		name    string
		m, k, n int
	}
	layerLins := []lin{{"qkv", T, d, 3 * d}, {"attention out", T, d, d}, {"ffn up", T, d, f}, {"ffn down", T, f, d}}
	norm := func(name string) { add(name, classNorm, 8*t*float64(d), t*float64(d)*(R+O)) }
	resid := func(name string) { add(name, classElementwise, t*float64(d), t*float64(d)*(2*R+O)) }
	attnFwd := func() {
		if r.Flash {
			half := max(1, s/2)
			add("flash attention", classAttention, 5*float64(bh)*float64(s)*float64(half), 4*t*float64(d)*O,
				GEMM{M: s, N: half, K: hd, Batch: bh}, GEMM{M: s, N: hd, K: half, Batch: bh})
			return
		}
		scores := float64(bh) * float64(s) * float64(s)
		add("attention scores", ClassGEMM, 0, 2*t*float64(d)*O+scores*O, GEMM{M: s, N: s, K: hd, Batch: bh})
		add("softmax", classSoftmax, 5*scores, 2*scores*O+scores/8)
		add("attention values", ClassGEMM, 0, scores*O+2*t*float64(d)*O, GEMM{M: s, N: hd, K: s, Batch: bh})
	}
	attnBwd := func() {
		if r.Flash {
			half := max(1, s/2)
			qk := GEMM{M: s, N: half, K: hd, Batch: bh}
			add("flash attention backward", classAttention, 5*float64(bh)*float64(s)*float64(half), 8*t*float64(d)*O,
				qk, qk, GEMM{M: half, N: hd, K: s, Batch: bh}, GEMM{M: s, N: hd, K: half, Batch: bh}, GEMM{M: half, N: hd, K: s, Batch: bh})
			return
		}
		scores := float64(bh) * float64(s) * float64(s)
		add("attention dP", ClassGEMM, 0, 2*t*float64(d)*O+scores*O, GEMM{M: s, N: s, K: hd, Batch: bh})
		add("attention dV", ClassGEMM, 0, scores*O+2*t*float64(d)*O, GEMM{M: s, N: hd, K: s, Batch: bh})
		add("softmax backward", classSoftmax, 4*scores, 3*scores*O)
		add("attention dQ", ClassGEMM, 0, scores*O+2*t*float64(d)*O, GEMM{M: s, N: hd, K: s, Batch: bh})
		add("attention dK", ClassGEMM, 0, scores*O+2*t*float64(d)*O, GEMM{M: s, N: hd, K: s, Batch: bh})
	}
	// forward
	add("embedding", classElementwise, t*float64(d), t*float64(d)*(R+8/float64(d)))
	for range c.Layers {
		norm("layer norm 1")
		gemm("qkv", GEMM{M: T, N: 3 * d, K: d})
		attnFwd()
		gemm("attention out", GEMM{M: T, N: d, K: d})
		resid("residual add")
		norm("layer norm 2")
		gemm("ffn up", GEMM{M: T, N: f, K: d})
		add("gelu", classElementwise, 8*t*float64(f), 2*t*float64(f)*O)
		gemm("ffn down", GEMM{M: T, N: d, K: f})
		resid("residual add")
	}
	norm("final layer norm")
	gemm("logits", GEMM{M: T, N: v, K: d})
	// cross-entropy: the logits read, softmax and its gradient written (float32 under autocast)
	add("cross-entropy", classSoftmax, 6*t*float64(v), t*float64(v)*(O+R))
	// backward
	gemm("logits dX", GEMM{M: T, N: d, K: v})
	gemm("logits dW", GEMM{M: d, N: v, K: T})
	add("final layer norm backward", classNorm, 10*t*float64(d), t*float64(d)*(2*R+O))
	for range c.Layers {
		for i := len(layerLins) - 1; i >= 0; i-- {
			l := layerLins[i]
			gemm(l.name+" dX", GEMM{M: l.m, N: l.k, K: l.n})
			gemm(l.name+" dW", GEMM{M: l.k, N: l.n, K: l.m})
			switch l.name {
			case "ffn down":
				add("gelu backward", classElementwise, 10*t*float64(f), 3*t*float64(f)*O)
			case "ffn up":
				add("layer norm 2 backward", classNorm, 10*t*float64(d), t*float64(d)*(2*R+O))
				resid("residual gradient add")
			case "attention out":
				attnBwd()
			case "qkv":
				add("layer norm 1 backward", classNorm, 10*t*float64(d), t*float64(d)*(2*R+O))
				resid("residual gradient add")
			}
		}
	}
	add("embedding backward", classElementwise, t*float64(d), 2*t*float64(d)*R)
	if params <= 0 {
		params = float64(c.NumParams())
	}
	if r.MasterWeights {
		add("cast weights", classElementwise, params, 6*params)
	}
	if update {
		if r.FusedOptimizer {
			add("adam (fused)", classOptimizer, 14*params, AdamBytesPerParam*params)
		} else {
			k := unfusedAdamKernels * (paramTensorsPerLayer*c.Layers + 4)
			for range k {
				add("adam (elementwise)", classOptimizer, 14*params/float64(k), unfusedAdamTraffic*AdamBytesPerParam*params/float64(k))
			}
		}
	}
	flops := 0.0
	for _, k := range seq {
		flops += k.FLOPs
	}
	bytes := 0.0
	for _, k := range seq {
		bytes += k.Bytes
	}
	return Work{What: fmt.Sprintf("%s train step, %s", c, r.Name), FLOPs: flops, Bytes: bytes, Precision: r.Matmul,
		Sequence: seq, Kernels: len(seq), KernelsFrom: "built layer by layer from the recipe (" + r.Name + ")"}
}

// Kernel classes of a recipe step, beside ClassGEMM and ClassElementwise.
const (
	classElementwise = ClassElementwise
	classNorm        = "layer norm"
	classSoftmax     = "softmax / cross-entropy"
	classAttention   = "attention (fused)"
	classOptimizer   = "optimizer update"
)

// TrainRun is a data-parallel training run of a GPT: every GPU runs GradAccum micro-batches of c
// (c.Batch sequences each) per optimizer step with recipe R, and the GPUs exchange gradients over
// Link — an all-reduce (DDP), or with FSDP (Sharded) two all-gathers of the bf16 parameters per
// micro-batch and a reduce-scatter of the gradients, each GPU updating its 1/GPUs of the parameters.
type TrainRun struct {
	GPT       gpt.GPT
	R         Recipe
	GradAccum int
	GPUs      int
	Sharded   bool
	Link      Link
}

// commExposed is the share of a step's collective time the GPU waits for: DDP and FSDP overlap
// the transfers with the backward pass bucket by bucket, so at least the last bucket (≈ one layer's
// share) and at most a quarter of it is exposed — the course's assumption.
var commExposed = Range{Low: 0, High: 0.25}

// Step is the band of one optimizer step on model m, in seconds at the optimistic and pessimistic
// ends: GradAccum micro-batches, the update, and the collectives' exposed time.
func (run TrainRun) Step(m Model) [2]float64 {
	c := run.GPT
	n := max(1, run.GPUs)
	p := float64(c.NumParams())
	mine := p
	if run.Sharded {
		mine = p / float64(n)
	}
	acc := max(1, run.GradAccum)
	micro := m.Estimate(GPTRecipeStep(c, run.R, mine, false))
	upd := m.Estimate(Work{What: "optimizer", Precision: run.R.Matmul, Sequence: optimizerKernels(c, run.R, mine), KernelsFrom: "recipe"})
	var out [2]float64
	lo, hi := micro.Low.Seconds(), micro.High.Seconds()
	ulo, uhi := upd.Low.Seconds(), upd.High.Seconds()
	out[0] = float64(acc)*lo + ulo
	out[1] = float64(acc)*hi + uhi
	if n > 1 && run.Link.BytesPerS > 0 {
		var bytes float64 // per GPU per optimizer step, as busbw bytes: (n−1)/n × size per phase
		if run.Sharded {
			bytes = float64(acc) * (2*2*p + 4*p) * float64(n-1) / float64(n) // two bf16 all-gathers and a float32 reduce-scatter per micro-batch
		} else {
			bytes = 4 * p * 2 * float64(n-1) / float64(n) // a float32 all-reduce
		}
		eff := run.Link.Efficiency
		tlo, thi := bytes/(eff.Low*run.Link.BytesPerS), bytes/(eff.High*run.Link.BytesPerS)
		out[0] += commExposed.Low*tlo + tlo/float64(max(1, c.Layers))
		out[1] += commExposed.High * thi
	}
	return out
}

func optimizerKernels(c gpt.GPT, r Recipe, params float64) []Kernel {
	w := GPTRecipeStep(gpt.GPT{Vocab: 2, Context: 2, Batch: 1, Embed: 1, Heads: 1, Layers: c.Layers}, r, params, true)
	var out []Kernel
	for _, k := range w.Sequence {
		if k.Class == classOptimizer {
			out = append(out, k)
		}
	}
	return out
}

// MPTFLOPsPerSeq is the model FLOPs of one sequence, forward and backward, as llm-foundry's MFU
// counts them: 6·N·s + 12·L·d·s² (its attention term is the full s×s product, causal or not).
func MPTFLOPsPerSeq(c gpt.GPT, numParams float64) float64 {
	s := float64(c.Context)
	return 6*numParams*s + 12*float64(c.Layers)*float64(c.Embed)*s*s
}

// MFU is the band of run's MFU on m, in percent of the datasheet peak of its recipe's precision:
// model FLOPs per optimizer step (flopsPerSeq × sequences per GPU) over the modeled step time.
func (run TrainRun) MFU(m Model, flopsPerSeq float64) (lo, hi float64) {
	st := run.Step(m)
	seqs := float64(run.GPT.Batch * max(1, run.GradAccum))
	peak := m.GPU.Peak(run.R.Matmul)
	return 100 * flopsPerSeq * seqs / st[1] / peak, 100 * flopsPerSeq * seqs / st[0] / peak
}

// TokensPerSecond is the band of run's throughput over all its GPUs on m.
func (run TrainRun) TokensPerSecond(m Model) (lo, hi float64) {
	st := run.Step(m)
	tok := float64(run.GPT.Tokens()*max(1, run.GradAccum)) * float64(max(1, run.GPUs))
	return tok / st[1], tok / st[0]
}
