package gpt

import (
	"fmt"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers/activation"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// The op classes of a GPT training step (GPTPart.Part), in the order GPTParts lists them.
const (
	GPTPartMatMuls   workloads.StepPart = "projections+FFN matmuls" // q/k/v, attention output, feed-forward up and down
	GPTPartAttention workloads.StepPart = "attention"               // scores q·kᵀ, causal mask, softmax, weighted values
	GPTPartNorms     workloads.StepPart = "norms+GELU+residuals"    // layer norms, the GELU, residual adds
	GPTPartOutput    workloads.StepPart = "output layer+loss"       // logits product, log-softmax cross-entropy
	GPTPartOptimizer workloads.StepPart = "optimizer"               // workloads.Adam over every parameter
)

// GPTParts lists a GPT step's op classes.
var GPTParts = []workloads.StepPart{GPTPartMatMuls, GPTPartAttention, GPTPartNorms, GPTPartOutput, GPTPartOptimizer}

// GPTPart is one op class of a GPT's training step, forward and backward, alone in its own
// executable on random inputs of the shapes the step has: time it apart to see where the step's
// time goes. Each class's products are batched (one einsum per kind of product over layers, batch
// and heads), and the elementwise classes take their gradients with GoMLX's autodiff of
// Σ(upstream gradient × forward output). The token embedding's gather and its gradient are not
// among the parts.
//
// FLOPs are the class's share of GPT.FLOPs, the exact matrix-product count: 3 × its forward
// products for the three product classes (a forward product and the two gradients), 0 for the
// layer norms, GELU, residuals and the optimizer, whose elementwise work that count leaves out. The
// classes' FLOPs sum to GPT.FLOPs.
//
// Bytes: each input read once and each output written once.
type GPTPart struct {
	GPT  GPT
	Part workloads.StepPart
}

// Name is e.g. "gpt-part-attention".
func (p GPTPart) Name() string { return "gpt-part-" + string(p.Part) }

// DType is float32.
func (p GPTPart) DType() dtypes.DType { return dtypes.Float32 }

// Params are the GPT's sizes.
func (p GPTPart) Params() map[string]int {
	c := p.GPT
	return map[string]int{"layers": c.Layers, "embed": c.Embed, "heads": c.Heads, "context": c.Context,
		"batch": c.Batch, "vocab": c.Vocab, "ffn": c.FFNWidth()}
}

// String is e.g. "attention of gpt L=2 d=64 …".
func (p GPTPart) String() string { return string(p.Part) + " of " + p.GPT.String() }

// matmuls are the forward products of the part (nil for the elementwise parts).
func (p GPTPart) matmuls() []GPTMatMul {
	m := p.GPT.ForwardMatMuls()
	switch p.Part {
	case GPTPartMatMuls:
		return m[:4]
	case GPTPartAttention:
		return m[4:6]
	case GPTPartOutput:
		return m[6:]
	}
	return nil
}

// FLOPs follows the type's doc comment.
func (p GPTPart) FLOPs() float64 {
	f := 0.0
	for _, m := range p.matmuls() {
		f += 3 * m.FLOPs()
	}
	return f
}

// shapes are the part's inputs and outputs.
func (p GPTPart) shapes() (ins, outs [][]int) {
	c := p.GPT
	d, f, s, l, h := c.Embed, c.FFNWidth(), c.Context, c.Layers, c.Heads
	t := c.Tokens()
	switch p.Part {
	case GPTPartMatMuls: // per kind: A[C,M,K], W[C,K,N], G[C,M,N] → Y, dW, dA
		for _, m := range p.matmuls() {
			ins = append(ins, []int{m.Count, m.M, m.K}, []int{m.Count, m.K, m.N}, []int{m.Count, m.M, m.N})
			outs = append(outs, []int{m.Count, m.M, m.N}, []int{m.Count, m.K, m.N}, []int{m.Count, m.M, m.K})
		}
	case GPTPartAttention: // q, k, v, upstream gradient [L·B·H, s, d/h] → output, dq, dk, dv
		sh := []int{l * c.Batch * h, s, d / h}
		ins = [][]int{sh, sh, sh, sh}
		outs = [][]int{sh, sh, sh, sh}
	case GPTPartNorms: // x, gain, offset, gradient of 2L norms; GELU input and gradient; residual branch and gradient
		ins = [][]int{{2 * l, t, d}, {2 * l, 1, d}, {2 * l, 1, d}, {2 * l, t, d}, {l, t, f}, {l, t, f}, {2 * l, t, d}, {2 * l, t, d}}
		outs = [][]int{{}, {2 * l, t, d}, {2 * l, 1, d}, {2 * l, 1, d}, {l, t, f}, {2 * l, t, d}}
	case GPTPartOutput: // x, W, one-hot targets → loss, dx, dW
		ins = [][]int{{t, d}, {d, c.Vocab}, {t, c.Vocab}}
		outs = [][]int{{}, {t, d}, {d, c.Vocab}}
	case GPTPartOptimizer: // p, g, m, v → p, m, v
		n := int(c.NumParams())
		ins = [][]int{{n}, {n}, {n}, {n}}
		outs = [][]int{{n}, {n}, {n}}
	}
	return ins, outs
}

// Bytes is every input read once and every output written once (float32).
func (p GPTPart) Bytes() float64 {
	ins, outs := p.shapes()
	return (workloads.Elems(ins) + workloads.Elems(outs)) * 4
}

// Validate checks the GPT and the part.
func (p GPTPart) Validate() error {
	if err := p.GPT.Validate(); err != nil {
		return err
	}
	for _, s := range GPTParts {
		if s == p.Part {
			return nil
		}
	}
	return fmt.Errorf("workloads: unknown GPT step part %q (known: %v)", p.Part, GPTParts)
}

// layerNorm normalizes over the last axis, then scales and shifts.
func layerNorm(x, gain, offset *graph.Node) *graph.Node {
	xc := graph.Sub(x, graph.ReduceAndKeep(x, graph.ReduceMean, -1))
	v := graph.ReduceAndKeep(graph.Square(xc), graph.ReduceMean, -1)
	return graph.Add(graph.Mul(graph.Div(xc, graph.Sqrt(graph.AddScalar(v, 1e-5))), gain), offset)
}

// dot is Σ a·b over every element: the scalar whose gradient is the vector-Jacobian product.
func dot(a, b *graph.Node) *graph.Node { return graph.ReduceAllSum(graph.Mul(a, b)) }

// graph builds the part from its inputs.
func (p GPTPart) graph(in []*graph.Node) []*graph.Node {
	c := p.GPT
	switch p.Part {
	case GPTPartMatMuls:
		var out []*graph.Node
		for i := range p.matmuls() {
			a, w, g := in[3*i], in[3*i+1], in[3*i+2]
			out = append(out, graph.Einsum("cmk,ckn->cmn", a, w), graph.Einsum("cmk,cmn->ckn", a, g), graph.Einsum("cmn,ckn->cmk", g, w))
		}
		return out
	case GPTPartAttention:
		q, k, v, g := in[0], in[1], in[2], in[3]
		s := c.Context
		scores := graph.MulScalar(graph.Einsum("bqd,bkd->bqk", q, k), 1/math.Sqrt(float64(c.Embed/c.Heads)))
		mask := graph.BroadcastToDims(graph.InsertAxes(graph.LowerTriangular(q.Graph(), s), 0), c.Layers*c.Batch*c.Heads, s, s)
		y := graph.Einsum("bqk,bkd->bqd", graph.MaskedSoftmax(scores, mask, -1), v)
		return append([]*graph.Node{y}, graph.Gradient(dot(y, g), q, k, v)...)
	case GPTPartNorms:
		x, gain, offset, gx, f, gf, r, gr := in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7]
		loss := graph.Add(graph.Add(dot(layerNorm(x, gain, offset), gx), dot(activation.Gelu(f), gf)), dot(graph.Add(x, r), gr))
		return append([]*graph.Node{loss}, graph.Gradient(loss, x, gain, offset, f, r)...)
	case GPTPartOutput:
		x, w, y := in[0], in[1], in[2]
		logits := graph.Einsum("td,dv->tv", x, w)
		loss := graph.DivScalar(graph.Neg(dot(y, graph.LogSoftmax(logits, -1))), float64(c.Tokens()))
		return append([]*graph.Node{loss}, graph.Gradient(loss, x, w)...)
	case GPTPartOptimizer:
		lr, c1, c2 := workloads.AdamStepOne(in[0].Graph(), dtypes.Float32, c.LearningRate())
		pp, m, v := workloads.AdamUpdate(in[0], in[1], in[2], in[3], lr, c1, c2)
		return []*graph.Node{pp, m, v}
	}
	return nil
}

// Prepare uploads random inputs of the part's shapes (Adam's second moments made non-negative, the
// output layer's targets one-hot) and builds its graph. The parts have no reference: time them
// without checking.
func (p GPTPart) Prepare(dev *devices.Device) (workloads.Instance, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	ins, _ := p.shapes()
	if err := workloads.CheckFits(dev, p.String(), p.Bytes(), workloads.Elems(ins)*4); err != nil {
		return nil, err
	}
	seed := workloads.SeedOrFresh(uint64(p.GPT.Seed))
	var host []workloads.HostInput
	for i, d := range ins {
		v := workloads.RandomFloats(int(workloads.Elems([][]int{d})), seed+uint64(i))
		switch {
		case p.Part == GPTPartOptimizer && i == 3:
			for j := range v {
				v[j] = float32(math.Abs(float64(v[j])))
			}
		case p.Part == GPTPartOutput && i == 2:
			for j := range v {
				v[j] = 0
			}
			for r := range d[0] {
				v[r*d[1]+(r*7)%d[1]] = 1
			}
		}
		host = append(host, workloads.HostInput{Values: v, Dims: d})
	}
	return workloads.NewExecInstance(dev, p.String(), p.Name(), dtypes.Float32, host, p.graph,
		func([]*tensors.Tensor) (float64, error) {
			return 0, fmt.Errorf("workloads: %s has no reference to check against", p)
		})
}
