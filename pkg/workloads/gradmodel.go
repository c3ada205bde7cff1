package workloads

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
)

// GradModel is a small float32 MLP whose real gradients lesson 05 inspects for what float16 would
// lose: In → Hidden (Depth times, tanh) → Out, mean-squared-error loss Σ(y − target)²/(2·Batch),
// learning to imitate a fixed random "teacher" network, so its loss (and its gradients) shrink as
// it trains — as late in a real run. Its layers, loss and SGD step are MLP's (float32, SGD), which
// is also its float64 reference.
type GradModel struct {
	Batch, In, Hidden, Out, Depth int
	Seed                          uint64
}

// mlp is the float32 SGD MLP of the same shapes (its FLOPs, bytes and float64 reference).
func (m GradModel) mlp() MLP {
	return MLP{Batch: m.Batch, In: m.In, Hidden: m.Hidden, Out: m.Out, Depth: m.Depth, Type: dtypes.Float32, Optimizer: SGD}
}

// NumParams is Σ dᵢ·dᵢ₊₁ + dᵢ₊₁ (MLP.NumParams).
func (m GradModel) NumParams() int64 { return m.mlp().NumParams() }

// FLOPs is one SGD step's (or one gradient computation's), as MLP counts it: 3 × the forward pass's
// 2·Batch·Σ dᵢ·dᵢ₊₁ (forward, and twice that backward).
func (m GradModel) FLOPs() float64 { return m.mlp().FLOPs() }

// Dims are the layer widths: In, Hidden (Depth times), Out.
func (m GradModel) Dims() []int { return m.mlp().Dims() }

// Bytes is the minimum memory traffic of one float32 SGD step of these shapes (MLP.Bytes).
func (m GradModel) Bytes() float64 { return m.mlp().Bytes() }

// Validate reports invalid shapes.
func (m GradModel) Validate() error {
	if m.Batch <= 0 || m.In <= 0 || m.Hidden <= 0 || m.Out <= 0 || m.Depth < 1 {
		return fmt.Errorf("workloads: invalid gradient model %+v", m)
	}
	return nil
}

// forward returns the loss and every layer's output before its activation.
func (m GradModel) forward(x, target *graph.Node, params []*graph.Node) (loss *graph.Node, outs []*graph.Node) {
	h := x
	n := len(params) / 2
	for i := 0; i < n; i++ {
		z := graph.Add(graph.MatMul(h, params[2*i]), params[2*i+1])
		outs = append(outs, z)
		h = z
		if i < n-1 {
			h = graph.Tanh(z)
		}
	}
	loss = graph.DivScalar(graph.ReduceAllSum(graph.Square(graph.Sub(h, target))), 2*float64(m.Batch))
	return loss, outs
}

// SGDStep is the graph of one float32 SGD step: inputs [x, y, lr, params...] → [new params..., loss].
func (m GradModel) SGDStep(in []*graph.Node) []*graph.Node {
	x, y, lr, params := in[0], in[1], in[2], in[3:]
	loss, _ := m.forward(x, y, params)
	g := graph.Gradient(loss, params...)
	var out []*graph.Node
	for i, p := range params {
		out = append(out, graph.Sub(p, graph.Mul(lr, g[i])))
	}
	return append(out, loss)
}

// ScaledGradients is the graph of the gradients of S·loss (S the loss scale): inputs
// [x, y, scale, params...] → [loss, ∂(S·loss)/∂params..., ∂(S·loss)/∂layer outputs...].
func (m GradModel) ScaledGradients(in []*graph.Node) []*graph.Node {
	x, y, scale, params := in[0], in[1], in[2], in[3:]
	loss, outs := m.forward(x, y, params)
	scaled := graph.Mul(loss, scale)
	g := graph.Gradient(scaled, append(append([]*graph.Node{}, params...), outs...)...)
	return append([]*graph.Node{loss}, g...)
}
