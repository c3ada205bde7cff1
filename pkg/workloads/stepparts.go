package workloads

import (
	"fmt"
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// StepPart is one class of operations of an MLP training step.
type StepPart string

// The op classes of a training step, in the order a step runs them.
const (
	PartMatMuls   StepPart = "matmuls"         // forward products, weight and input gradients
	PartBiasAct   StepPart = "bias+activation" // bias adds, tanh, their gradients and the bias gradients
	PartLoss      StepPart = "loss"            // squared error and its gradient
	PartOptimizer StepPart = "optimizer"       // the parameter update (SGD or Adam)
)

// StepParts lists the op classes in order.
var StepParts = []StepPart{PartMatMuls, PartBiasAct, PartLoss, PartOptimizer}

// MLPPart is one op class of an MLP's training step, alone in its own executable, on inputs of the
// shapes the step has (random values): time it apart to see where a step's time goes. The parts
// together do the step's work; run as one step, XLA fuses across them, so the whole step takes less
// than the sum of its parts.
//
// FLOPs (B = Batch, dᵢ the widths, P = NumParams, H = Hidden, O = Out):
//   - matmuls: the step's products, 2·B·dᵢ·dᵢ₊₁ for each forward product and weight gradient and for
//     each input gradient except the first layer's (= MLP.ExactFLOPs);
//   - bias+activation: per hidden layer 6·B·H (bias add, tanh; tanh's gradient 1 − h², times the
//     incoming gradient; the bias gradient's sum over the batch), for the output layer 2·B·O;
//   - loss: 4·B·O (difference, square, sum, gradient);
//   - optimizer: 2·P for SGD (p − lr·g), 14·P for Adam (moments, bias corrections, square root,
//     division, update).
//
// Bytes: each input read once and each output written once.
type MLPPart struct {
	MLP  MLP
	Part StepPart
}

// Name is e.g. "mlp-part-matmuls".
func (p MLPPart) Name() string { return "mlp-part-" + string(p.Part) }

// DType is the MLP's compute type.
func (p MLPPart) DType() dtypes.DType { return p.MLP.Type }

// Params are the MLP's.
func (p MLPPart) Params() map[string]int { return p.MLP.Params() }

// String is e.g. "matmuls of mlp train step …".
func (p MLPPart) String() string { return string(p.Part) + " of " + p.MLP.String() }

// FLOPs follows the type's doc comment.
func (p MLPPart) FLOPs() float64 {
	w := p.MLP
	B, d := float64(w.Batch), w.Dims()
	switch p.Part {
	case PartMatMuls:
		return w.ExactFLOPs()
	case PartBiasAct:
		return 6*B*float64(w.Hidden)*float64(w.Depth) + 2*B*float64(w.Out)
	case PartLoss:
		return 4 * B * float64(d[len(d)-1])
	case PartOptimizer:
		if w.EffectiveOptimizer() == Adam {
			return 14 * float64(w.NumParams())
		}
		return 2 * float64(w.NumParams())
	}
	return 0
}

// shapes are the inputs and outputs of a part, as lists of dims.
func (p MLPPart) shapes() (ins, outs [][]int) {
	w := p.MLP
	d := w.Dims()
	B := w.Batch
	L := len(d) - 1
	switch p.Part {
	case PartMatMuls:
		for i := range L { // h_i, W_i, g_{i+1}
			ins = append(ins, []int{B, d[i]}, []int{d[i], d[i+1]}, []int{B, d[i+1]})
			outs = append(outs, []int{B, d[i+1]}, []int{d[i], d[i+1]})
			if i > 0 {
				outs = append(outs, []int{B, d[i]})
			}
		}
	case PartBiasAct:
		for i := 1; i <= L; i++ { // z_i, b_i, g_i → h_i, dz_i, db_i
			ins = append(ins, []int{B, d[i]}, []int{1, d[i]}, []int{B, d[i]})
			outs = append(outs, []int{B, d[i]}, []int{B, d[i]}, []int{1, d[i]})
		}
	case PartLoss:
		ins = [][]int{{B, d[L]}, {B, d[L]}}
		outs = [][]int{{}, {B, d[L]}}
	case PartOptimizer:
		k := 2 // p, g
		if w.EffectiveOptimizer() == Adam {
			k = 4 // p, g, m, v
		}
		for i := range L { // per parameter tensor: p, g (, m, v) consecutively
			for _, sh := range [][]int{{d[i], d[i+1]}, {1, d[i+1]}} {
				for range k {
					ins = append(ins, sh)
				}
				for range k - 1 {
					outs = append(outs, sh)
				}
			}
		}
	}
	return ins, outs
}

func Elems(ds [][]int) float64 {
	var n float64
	for _, d := range ds {
		e := 1.0
		for _, x := range d {
			e *= float64(x)
		}
		n += e
	}
	return n
}

// Bytes is every input read once and every output written once.
func (p MLPPart) Bytes() float64 {
	ins, outs := p.shapes()
	return (Elems(ins) + Elems(outs)) * float64(p.MLP.Type.Size())
}

// Validate checks the MLP (float32 or float64 only: the parts are not mixed precision) and the part.
func (p MLPPart) Validate() error {
	if err := p.MLP.Validate(); err != nil {
		return err
	}
	if p.MLP.Type != dtypes.Float32 && p.MLP.Type != dtypes.Float64 {
		return fmt.Errorf("workloads: step parts run in float32 or float64, got %s", p.MLP.Type)
	}
	for _, s := range StepParts {
		if s == p.Part {
			return nil
		}
	}
	return fmt.Errorf("workloads: unknown step part %q (known: %v)", p.Part, StepParts)
}

// graph builds the part from its inputs.
func (p MLPPart) graph(in []*graph.Node) []*graph.Node {
	w := p.MLP
	L := len(w.Dims()) - 1
	var out []*graph.Node
	switch p.Part {
	case PartMatMuls:
		for i := range L {
			h, W, g := in[3*i], in[3*i+1], in[3*i+2]
			out = append(out, graph.MatMul(h, W), graph.MatMul(graph.Transpose(h, 0, 1), g))
			if i > 0 {
				out = append(out, graph.MatMul(g, graph.Transpose(W, 0, 1)))
			}
		}
	case PartBiasAct:
		for i := range L {
			z, b, g := in[3*i], in[3*i+1], in[3*i+2]
			h := graph.Add(z, b)
			dz := g
			if i < L-1 {
				h = graph.Tanh(h)
				dz = graph.Mul(g, graph.OneMinus(graph.Square(h)))
			}
			out = append(out, h, dz, graph.ReduceAndKeep(dz, graph.ReduceSum, 0))
		}
	case PartLoss:
		diff := graph.Sub(in[0], in[1])
		loss := graph.DivScalar(graph.ReduceAllSum(graph.Square(diff)), 2*float64(w.Batch))
		out = []*graph.Node{loss, graph.DivScalar(diff, float64(w.Batch))}
	case PartOptimizer:
		lr := w.LearningRate()
		if w.EffectiveOptimizer() == Adam {
			lrNode, c1, c2 := AdamStepOne(in[0].Graph(), w.Type, lr)
			var ps, ms, vs []*graph.Node
			for j := 0; j < len(in); j += 4 {
				pp, m, v := AdamUpdate(in[j], in[j+1], in[j+2], in[j+3], lrNode, c1, c2)
				ps, ms, vs = append(ps, pp), append(ms, m), append(vs, v)
			}
			out = append(append(ps, ms...), vs...)
		} else {
			for j := 0; j < len(in); j += 2 {
				out = append(out, graph.Sub(in[j], graph.MulScalar(in[j+1], lr)))
			}
		}
	}
	return out
}

// Prepare uploads random inputs of the part's shapes (Adam's second moments made non-negative) and
// builds its graph. Check compares the part's first output with float64 on the host.
func (p MLPPart) Prepare(dev *devices.Device) (Instance, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if ok, why := Supports(dev, p.MLP.Type); !ok {
		return nil, fmt.Errorf("workloads: %s on %s: %s", p, dev.Name, why)
	}
	ins, _ := p.shapes()
	if err := CheckFits(dev, p.String(), p.Bytes(), Elems(ins)*4); err != nil {
		return nil, err
	}
	seed := SeedOrFresh(p.MLP.Seed)
	var host []HostInput
	for i, d := range ins {
		v := RandomFloats(int(Elems([][]int{d})), seed+uint64(i))
		if p.Part == PartOptimizer && p.MLP.EffectiveOptimizer() == Adam && i%4 == 3 {
			for j := range v {
				v[j] = float32(math.Abs(float64(v[j])))
			}
		}
		host = append(host, HostInput{Values: v, Dims: d})
	}
	return NewExecInstance(dev, p.String(), p.Name(), p.MLP.Type, host, p.graph,
		AgainstFirst(func() []float64 { return p.reference(host) }))
}

// reference computes the part's first output in float64.
func (p MLPPart) reference(host []HostInput) []float64 {
	w := p.MLP
	x := func(i int) []float64 { return RoundTo(host[i].Values, w.Type) }
	switch p.Part {
	case PartMatMuls:
		d := w.Dims()
		return refMatMul(x(0), x(1), w.Batch, d[0], d[1])
	case PartBiasAct:
		z, b := x(0), x(1)
		n := host[1].Dims[1]
		out := make([]float64, len(z))
		for i, v := range z {
			out[i] = v + b[i%n]
			if len(w.Dims()) > 2 {
				out[i] = math.Tanh(out[i])
			}
		}
		return out
	case PartLoss:
		a, b := x(0), x(1)
		s := 0.0
		for i := range a {
			s += (a[i] - b[i]) * (a[i] - b[i])
		}
		return []float64{s / (2 * float64(w.Batch))}
	case PartOptimizer:
		pp, g := x(0), x(1)
		out := make([]float64, len(pp))
		var ms, vs []float64
		if w.EffectiveOptimizer() == Adam {
			ms, vs = x(2), x(3) // once: x rounds the whole input
		}
		for i := range pp {
			if w.EffectiveOptimizer() == Adam {
				m, v := ms[i], vs[i]
				m = AdamBeta1*m + (1-AdamBeta1)*g[i]
				v = AdamBeta2*v + (1-AdamBeta2)*g[i]*g[i]
				out[i] = pp[i] - w.LearningRate()*(m/(1-AdamBeta1))/(math.Sqrt(v/(1-AdamBeta2))+AdamEpsilon)
			} else {
				out[i] = pp[i] - w.LearningRate()*g[i]
			}
		}
		return out
	}
	return nil
}
