package workloads

import (
	"fmt"
	"math"
	"strings"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Optimizer is the update rule of an MLP training step.
type Optimizer string

// Optimizers.
const (
	// SGD is plain stochastic gradient descent: p ← p − lr·g. No state.
	SGD Optimizer = "sgd"
	// Adam keeps two moments per parameter (PyTorch's torch.optim.Adam, β1 = 0.9, β2 = 0.999,
	// ε = 1e-8): m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g², p ← p − lr·m̂/(√v̂ + ε) with
	// m̂ = m/(1−β1ᵗ), v̂ = v/(1−β2ᵗ).
	Adam Optimizer = "adam"
)

// Adam's hyper-parameters.
const (
	AdamBeta1   = 0.9
	AdamBeta2   = 0.999
	AdamEpsilon = 1e-8
)

// AdamUpdate is the course's one Adam update (see Adam) of one parameter tensor p with gradient g
// and moments m, v, given the learning rate and the bias corrections c1 = 1−β1ᵗ, c2 = 1−β2ᵗ as
// scalar nodes: it returns the new p, m and v. The MLP's step (Trainer) and the optimizer parts
// (MLPPart, GPTPart) all build it.
//
// Hand-written, not GoMLX's optimizer.Adam (which train.NewGPTTrainer uses): the MLP's step is
// called directly with its state as donated buffers, while GoMLX's Adam keeps its moments in a
// model.Store run through model.Exec, and computes 1−βᵗ in the parameters' dtype, which in float32
// moves every update 1e-5 from PyTorch's double-precision value (see Trainer's step).
func AdamUpdate(p, g, m, v, lr, c1, c2 *graph.Node) (newP, newM, newV *graph.Node) {
	m = graph.Add(graph.MulScalar(m, AdamBeta1), graph.MulScalar(g, 1-AdamBeta1))
	v = graph.Add(graph.MulScalar(v, AdamBeta2), graph.MulScalar(graph.Square(g), 1-AdamBeta2))
	mhat, vhat := graph.Div(m, c1), graph.Div(v, c2)
	upd := graph.Div(mhat, graph.AddScalar(graph.Sqrt(vhat), AdamEpsilon))
	return graph.Sub(p, graph.Mul(lr, upd)), m, v
}

// AdamStepOne is adamUpdate's learning rate and bias corrections at step 1 (1−β1, 1−β2) as constants
// of g in dtype dt: the optimizer parts time one update.
func AdamStepOne(g *graph.Graph, dt dtypes.DType, lr float64) (lrNode, c1, c2 *graph.Node) {
	return graph.Scalar(g, dt, lr), graph.Scalar(g, dt, 1-AdamBeta1), graph.Scalar(g, dt, 1-AdamBeta2)
}

// MLP is one training step of a multi-layer perceptron: forward pass, mean-squared-error loss,
// backward pass (GoMLX's reverse-mode autodiff) and the optimizer update, all in one compiled graph.
//
// The layers are In → Hidden (Depth times) → Out, each y = x·W + b, with tanh between layers (smooth,
// so the float64 check has no kinks) and none after the last. Depth 0 is a linear model. The loss is
// Σ(y − target)² / (2·Batch).
//
// FLOPs count the matrix products only (bias adds, tanh, the loss and the update are O(Batch·Σdᵢ)
// and O(parameters), a few percent at the sizes lessons use):
//
//	forward  = 2·Batch·Σ dᵢ·dᵢ₊₁   (d = In, Hidden, …, Hidden, Out)
//	backward ≈ 2 × forward          (the gradient w.r.t. each layer's weights and w.r.t. its input)
//	FLOPs    = 3 × forward          (the "6·N·T" rule: 2 forward + 4 backward per parameter and sample)
//
// The exact count is 3 × forward − 2·Batch·In·Hidden: nobody needs the gradient w.r.t. the input
// batch, and autodiff does not compute it. FLOPs reports the conventional 3× so numbers match the
// papers; ExactFLOPs has the other.
//
// Parameters (and Adam's moments) are uploaded once and stay on the device: each step's outputs are
// the next step's inputs (their buffers donated, as PyTorch updates in place), and the loss stays on
// the device until Trainer.Loss reads it. For bfloat16 and float16, parameters, gradients and
// EffectiveOptimizer state are float32 "master" copies and only the matrix products and activations run in
// the 16-bit type (mixed precision, as torch.autocast does); float32 and float64 run in one type.
type MLP struct {
	Batch, In, Hidden, Out int          // samples per step; input, hidden-layer and output widths
	Depth                  int          // hidden layers (Depth+1 weight matrices)
	Type                   dtypes.DType // compute dtype of the matrix products and activations
	Optimizer              Optimizer    // "" picks SGD
	LR                     float64      // learning rate; 0 picks 0.01 (SGD) or 0.001 (Adam)
	Seed                   uint64       // parameter and batch seed; 0 draws a fresh one
}

// Name returns "mlp-sgd" or "mlp-adam".
func (w MLP) Name() string { return "mlp-" + string(w.EffectiveOptimizer()) }

// DType returns the compute dtype.
func (w MLP) DType() dtypes.DType { return w.Type }

// Params returns {"batch", "in", "hidden", "out", "depth"}.
func (w MLP) Params() map[string]int {
	return map[string]int{"batch": w.Batch, "in": w.In, "hidden": w.Hidden, "out": w.Out, "depth": w.Depth}
}

// String describes it, e.g. "mlp train step 64×(784→512×2→10) float32 adam".
// A linear model (Depth 0) reads "mlp train step 64×(784→10) float32 sgd".
func (w MLP) String() string {
	layers := fmt.Sprintf("%d→%d×%d→%d", w.In, w.Hidden, w.Depth, w.Out)
	if w.Depth == 0 {
		layers = fmt.Sprintf("%d→%d", w.In, w.Out)
	}
	return fmt.Sprintf("mlp train step %d×(%s) %s %s", w.Batch, layers, w.Type, w.EffectiveOptimizer())
}

func (w MLP) usesDot() bool { return true }

// EffectiveOptimizer is the optimizer the step uses: Optimizer, or the default when it is empty.
func (w MLP) EffectiveOptimizer() Optimizer {
	if w.Optimizer == "" {
		return SGD
	}
	return w.Optimizer
}

// LearningRate is the step's learning rate: LR, or the default for its optimizer when LR is 0.
func (w MLP) LearningRate() float64 {
	switch {
	case w.LR != 0:
		return w.LR
	case w.EffectiveOptimizer() == Adam:
		return 1e-3
	}
	return 1e-2
}

// Dims are the layer widths: In, Hidden (Depth times), Out.
func (w MLP) Dims() []int {
	d := []int{w.In}
	for i := 0; i < w.Depth; i++ {
		d = append(d, w.Hidden)
	}
	return append(d, w.Out)
}

// ParamType is the dtype parameters, gradients and optimizer state are kept in: float32 when Type is
// 16-bit (mixed precision), Type otherwise.
func (w MLP) ParamType() dtypes.DType {
	if w.Type.Size() < 4 {
		return dtypes.Float32
	}
	return w.Type
}

// NumParams is the number of parameters: Σ (dᵢ·dᵢ₊₁ + dᵢ₊₁), weights and biases.
func (w MLP) NumParams() int64 {
	d := w.Dims()
	var n int64
	for i := 0; i+1 < len(d); i++ {
		n += int64(d[i])*int64(d[i+1]) + int64(d[i+1])
	}
	return n
}

// ForwardFLOPs is 2·Batch·Σ dᵢ·dᵢ₊₁.
func (w MLP) ForwardFLOPs() float64 {
	d := w.Dims()
	var s float64
	for i := 0; i+1 < len(d); i++ {
		s += float64(d[i]) * float64(d[i+1])
	}
	return 2 * float64(w.Batch) * s
}

// FLOPs is 3 × ForwardFLOPs: forward plus a backward pass of about twice the forward.
func (w MLP) FLOPs() float64 { return 3 * w.ForwardFLOPs() }

// ExactFLOPs is the matrix-product FLOPs autodiff actually performs: 3 × forward − 2·Batch·In·d₁
// (no gradient w.r.t. the input batch).
func (w MLP) ExactFLOPs() float64 {
	d := w.Dims()
	return w.FLOPs() - 2*float64(w.Batch)*float64(d[0])*float64(d[1])
}

// Bytes is a lower bound on one step's memory traffic: read and write every parameter and every
// optimizer-state value once, read the batch once, and write each layer's output in the forward pass
// and read it back in the backward pass (2 × Memory().Activations). Gradients are assumed to stay in
// cache (an ideal fused kernel); a real step moves more.
func (w MLP) Bytes() float64 {
	m := w.Memory()
	return float64(2*m.Parameters + 2*m.OptimizerState + m.Batch + 2*m.Activations)
}

// Memory is what a training step holds in device memory, in bytes, computed from shapes.
type Memory struct {
	Parameters     int64 `json:"parameters"`      // weights and biases (ParamType)
	Gradients      int64 `json:"gradients"`       // one gradient per parameter (ParamType)
	OptimizerState int64 `json:"optimizer_state"` // Adam: two moments per parameter; SGD: none
	Activations    int64 `json:"activations"`     // each layer's output, kept for the backward pass (Type)
	Batch          int64 `json:"batch"`           // the input batch and its targets (Type)
}

// Total is the sum of all parts.
func (m Memory) Total() int64 {
	return m.Parameters + m.Gradients + m.OptimizerState + m.Activations + m.Batch
}

// Memory computes the memory parts of one training step from its shapes: parameters and gradients
// NumParams × ParamType size each, Adam's state twice that, activations Batch × Σᵢ₌₁ dᵢ × Type size
// (every layer's output, hidden and final), the batch Batch × (In + Out) × Type size. Temporary
// buffers of the backward pass and the 16-bit copies of weights made by mixed precision are not
// counted: it is the textbook estimate a memory lesson compares with measurements.
func (w MLP) Memory() Memory {
	ps, cs := int64(w.ParamType().Size()), int64(w.Type.Size())
	p := w.NumParams()
	m := Memory{Parameters: p * ps, Gradients: p * ps, Batch: int64(w.Batch) * int64(w.In+w.Out) * cs}
	if w.EffectiveOptimizer() == Adam {
		m.OptimizerState = 2 * p * ps
	}
	d := w.Dims()
	for _, di := range d[1:] {
		m.Activations += int64(w.Batch) * int64(di) * cs
	}
	return m
}

// Validate reports invalid shapes, dtypes or optimizers.
func (w MLP) Validate() error {
	if w.Batch <= 0 || w.In <= 0 || w.Out <= 0 || w.Depth < 0 || (w.Depth > 0 && w.Hidden <= 0) {
		return fmt.Errorf("workloads: an MLP needs positive Batch, In, Out (and Hidden when Depth > 0) and Depth ≥ 0, got Batch=%d In=%d Hidden=%d Out=%d Depth=%d",
			w.Batch, w.In, w.Hidden, w.Out, w.Depth)
	}
	if !w.Type.IsFloat() {
		return fmt.Errorf("workloads: an MLP needs a floating-point dtype, got %s", w.Type)
	}
	if o := w.EffectiveOptimizer(); o != SGD && o != Adam {
		return fmt.Errorf("workloads: unknown optimizer %q (use %q or %q)", o, SGD, Adam)
	}
	if w.LR < 0 || math.IsNaN(w.LR) {
		return fmt.Errorf("workloads: learning rate must be positive, got %g", w.LR)
	}
	return nil
}

// initParams draws the initial parameters from seed, weights and biases in layer order:
// Xavier-uniform weights (±√(3/fan-in)) and biases uniform in ±0.1.
func (w MLP) initParams(seed uint64) [][]float32 {
	d := w.Dims()
	var init [][]float32
	for i := 0; i+1 < len(d); i++ {
		wv := RandomFloats(d[i]*d[i+1], seed+uint64(100+2*i))
		scale := float32(math.Sqrt(3 / float64(d[i])))
		for j := range wv {
			wv[j] *= scale
		}
		bv := RandomFloats(d[i+1], seed+uint64(101+2*i))
		for j := range bv {
			bv[j] *= 0.1
		}
		init = append(init, wv, bv)
	}
	return init
}

// Prepare builds the training step on dev (see NewTrainer).
func (w MLP) Prepare(dev *devices.Device) (Instance, error) { return w.NewTrainer(dev) }

// describeMemory formats a Memory as one line, for errors and examples.
func describeMemory(m Memory) string {
	parts := []string{
		"parameters " + units.BytesFixed(float64(m.Parameters)),
		"gradients " + units.BytesFixed(float64(m.Gradients)),
		"optimizer " + units.BytesFixed(float64(m.OptimizerState)),
		"activations " + units.BytesFixed(float64(m.Activations)),
		"batch " + units.BytesFixed(float64(m.Batch)),
	}
	return strings.Join(parts, ", ")
}

// String formats the parts and the total, e.g. "parameters 1.6 MiB, gradients 1.6 MiB, … = 5.0 MiB".
func (m Memory) String() string {
	return describeMemory(m) + " = " + units.BytesFixed(float64(m.Total()))
}
