// Package memsize holds the formula that sizes a decoder-only transformer's training step per
// device: parameters, gradients, optimizer state, activations and workspace, each with the text of
// its formula, for a precision recipe (fp32, or bf16 mixed precision with fp32 master weights), an
// optimizer (SGD or Adam), activation recompute (none, selective, full), a ZeRO stage 0–3 and a
// data-parallel degree. It is a model computed from shapes, not a measurement: lessons/memory checks
// it against the memory XLA plans for the course's real GPT step (pkg/measure/hlo).
//
// The model is the course's GPT (pkg/gpt.GPT, GoMLX's ml/zoo/transformer): per layer a
// query/key/value projection, causal softmax attention, an output projection, a GELU feed-forward
// block of width f (4·d unless set), two layer norms; a token embedding, RoPE positions (no
// position table) and an output projection to the vocabulary (tied to the embedding or not).
//
// The parameter count Ψ is
//
//	Ψ = L·(4d² + 2d·f) + L·(9d + f) + d·V·(2, or 1 when tied)
//
// (the matrices, the biases of the four attention projections and of the two feed-forward
// layers, two layer norms' gain and offset; the embedding and, untied, the output layer).
//
// Bytes per parameter follow the ZeRO paper's accounting for mixed-precision Adam (Rajbhandari et
// al. 2019, "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models"): 2 bytes of
// 16-bit weights, 2 of 16-bit gradients and K = 12 of optimizer state (fp32 master weights,
// momentum and variance), 16 in all — the paper's 1.5B-parameter model needs at least 24 GB before
// any activation. Plain fp32 keeps 4 + 4 and Adam's 8. ZeRO stage 1 divides the optimizer state
// by the data-parallel degree N_d, stage 2 the gradients as well, stage 3 the parameters too.
//
// Activations count, per layer and sequence of the micro-batch, what the backward pass reads back
// (the accounting of Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models", without dropout, which the course's GPT does not use): the attention
// block's input, Q, K, V and the input of its output projection (5·s·d values), the softmax
// output (a·s² values), the feed-forward block's input, its up-projection and its GELU output
// (s·d + 2·s·f) and the two layer norms' inputs (2·s·d):
//
//	per layer: b·(s·(8d + 2f) + a·s²) values
//
// Selective recompute drops the a·s² softmax term (recomputed from Q and K); full recompute keeps
// only each layer's input, b·s·d, plus one layer's full set while that layer is recomputed. The
// fp32 logits the loss reads (b·s·V) are activations too; their gradient, written while the logits
// are still live, is workspace, as is (ZeRO-3) the one layer of parameters gathered from the other
// devices.
package memsize
