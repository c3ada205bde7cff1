package workloads

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// MLPForward is the forward pass alone of an MLP in float32 (no loss, no backward pass, no update):
// the work of serving requests, Batch samples at a time (batch 1 is one request). It has MLP's
// layers (In → Hidden × Depth → Out, tanh between layers), its parameter initialization and its
// forward FLOP count, and checks against the same float64 forward pass as MLP's training step.
type MLPForward struct {
	Batch, In, Hidden, Out, Depth int
	Seed                          uint64 // parameter and input seed; 0 is a fixed one (every run serves the same model)
}

// mlp is the MLP whose forward pass this is.
func (f MLPForward) mlp() MLP {
	return MLP{Batch: f.Batch, In: f.In, Hidden: f.Hidden, Out: f.Out, Depth: f.Depth, Type: dtypes.Float32}
}

// NumParams is Σ dᵢ·dᵢ₊₁ + dᵢ₊₁ (MLP.NumParams).
func (f MLPForward) NumParams() int64 { return f.mlp().NumParams() }

// Name returns "mlp-forward".
func (f MLPForward) Name() string { return "mlp-forward" }

// String describes it, e.g. "mlp forward 1×(64→256×2→10) float32, 85002 parameters".
func (f MLPForward) String() string {
	return fmt.Sprintf("mlp forward %d×(%d→%d×%d→%d) float32, %d parameters", f.Batch, f.In, f.Hidden, f.Depth, f.Out, f.NumParams())
}

// DType is float32.
func (f MLPForward) DType() dtypes.DType { return dtypes.Float32 }

// Params returns the shapes and the parameter count.
func (f MLPForward) Params() map[string]int {
	return map[string]int{"batch": f.Batch, "in": f.In, "hidden": f.Hidden, "out": f.Out, "depth": f.Depth, "parameters": int(f.NumParams())}
}

// FLOPs is 2·Batch·Σ dᵢ·dᵢ₊₁ (MLP.ForwardFLOPs).
func (f MLPForward) FLOPs() float64 { return f.mlp().ForwardFLOPs() }

// Bytes is the parameters and the input read, the output written, in float32.
func (f MLPForward) Bytes() float64 { return 4 * float64(f.NumParams()+int64(f.Batch*(f.In+f.Out))) }

// Validate reports invalid shapes (MLP.Validate).
func (f MLPForward) Validate() error { return f.mlp().Validate() }

// forwardSeed is the seed of MLPForward's parameters and input when Seed is 0.
const forwardSeed = 10

// Prepare uploads random parameters (MLP's initialization) and a random input to dev and builds the
// forward graph. Its Check compares the output with a float64 forward pass on the host.
func (f MLPForward) Prepare(dev *devices.Device) (Instance, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	w := f.mlp()
	seed := f.Seed
	if seed == 0 {
		seed = forwardSeed
	}
	init := w.initParams(seed)
	x := RandomFloats(f.Batch*f.In, seed+1)
	d := w.Dims()
	host := []HostInput{{Values: x, Dims: []int{f.Batch, f.In}}}
	for k, v := range init {
		dims := []int{1, d[k/2+1]}
		if k%2 == 0 {
			dims = []int{d[k/2], d[k/2+1]}
		}
		host = append(host, HostInput{Values: v, Dims: dims})
	}
	params := make([][]float64, len(init))
	for k, v := range init {
		params[k] = RoundTo(v, dtypes.Float32)
	}
	xs := RoundTo(x, dtypes.Float32)
	return NewExecInstance(dev, f.String(), f.Name(), dtypes.Float32, host, func(in []*graph.Node) *graph.Node {
		h := in[0]
		for l := 0; l+1 < len(d); l++ {
			h = graph.Add(graph.MatMul(h, in[1+2*l]), in[2+2*l])
			if l+2 < len(d) {
				h = graph.Tanh(h)
			}
		}
		return h
	}, AgainstFirst(func() []float64 {
		hs, _ := refForward(w, params, xs)
		return hs[len(hs)-1]
	}))
}
