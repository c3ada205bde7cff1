package launch

import (
	"fmt"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// ElementwiseChain applies Ops elementwise operations to N elements, alternating x·a and x + b
// (ChainA, ChainB): as one graph (Fused), which XLA compiles into a single kernel that reads x once
// and writes the result once, or as Ops separate executables run one after another, each reading
// its input from memory and writing its output back.
//
// FLOPs = Ops·N. Bytes: fused 2·N × element size; unfused Ops × 2·N × element size.
type ElementwiseChain struct {
	N, Ops int
	Fused  bool
	Type   dtypes.DType
	Seed   uint64
}

// The chain's constants: multiplying by ChainA and adding ChainB keep values near their start.
const (
	ChainA = 1.0009765625 // 1 + 2⁻¹⁰, exact in every float type
	ChainB = -0.0009765625
)

// Name returns "chain-fused" or "chain-unfused".
func (w ElementwiseChain) Name() string {
	if w.Fused {
		return "chain-fused"
	}
	return "chain-unfused"
}

// DType is the element type.
func (w ElementwiseChain) DType() dtypes.DType { return w.Type }

// Params are n, ops and fused (1 or 0).
func (w ElementwiseChain) Params() map[string]int {
	f := 0
	if w.Fused {
		f = 1
	}
	return map[string]int{"n": w.N, "ops": w.Ops, "fused": f}
}

// String is e.g. "8 elementwise ops over 128 MiB float32, one graph".
func (w ElementwiseChain) String() string {
	how := fmt.Sprintf("%d executables", w.Ops)
	if w.Fused {
		how = "one graph"
	}
	return fmt.Sprintf("%d elementwise ops over %s %s, %s", w.Ops, units.BytesFixed(float64(w.N)*float64(w.Type.Size())), w.Type, how)
}

// FLOPs is Ops·N.
func (w ElementwiseChain) FLOPs() float64 { return float64(w.Ops) * float64(w.N) }

// Bytes is 2·N elements once (fused) or once per op (unfused).
func (w ElementwiseChain) Bytes() float64 {
	b := 2 * float64(w.N) * float64(w.Type.Size())
	if w.Fused {
		return b
	}
	return b * float64(w.Ops)
}

// Validate reports bad sizes or dtypes.
func (w ElementwiseChain) Validate() error {
	if w.N <= 0 || w.Ops <= 0 {
		return fmt.Errorf("workloads: chain needs N > 0 and Ops > 0, got %d, %d", w.N, w.Ops)
	}
	if !w.Type.IsFloat() {
		return fmt.Errorf("workloads: chain needs a floating-point dtype, got %s", w.Type)
	}
	return nil
}

// chainOp is the i-th operation of the chain.
func chainOp(i int, x *graph.Node) *graph.Node {
	if i%2 == 0 {
		return graph.MulScalar(x, ChainA)
	}
	return graph.AddScalar(x, ChainB)
}

// Executables builds the chain on dev without compiling it: one executable (fused) or one per op,
// in order. The caller finalizes them. pkg/measure/hlo.Inspect shows what XLA makes of each.
func (w ElementwiseChain) Executables(dev *devices.Device) ([]*graph.Exec, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if w.Fused {
		ops := w.Ops
		e, err := workloads.NewExec(dev, "chain", func(x *graph.Node) *graph.Node {
			for i := range ops {
				x = chainOp(i, x)
			}
			return x
		})
		if err != nil {
			return nil, err
		}
		return []*graph.Exec{e}, nil
	}
	var es []*graph.Exec
	for i := range w.Ops {
		e, err := workloads.NewExec(dev, fmt.Sprintf("chain_op%d", i), func(x *graph.Node) *graph.Node { return chainOp(i, x) })
		if err != nil {
			for _, e := range es {
				e.Finalize()
			}
			return nil, err
		}
		es = append(es, e)
	}
	return es, nil
}

// Prepare builds the chain on dev and uploads a random x.
func (w ElementwiseChain) Prepare(dev *devices.Device) (workloads.Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if ok, why := workloads.Supports(dev, w.Type); !ok {
		return nil, fmt.Errorf("workloads: %s on %s: %s", w, dev.Name, why)
	}
	elem := float64(w.Type.Size())
	if err := workloads.CheckFits(dev, w.String(), 3*float64(w.N)*elem, float64(w.N)*4); err != nil {
		return nil, err
	}
	x32 := workloads.RandomFloats(w.N, workloads.SeedOrFresh(w.Seed))
	ins, err := workloads.UploadAll(dev, w.Type, []workloads.HostInput{{Values: x32, Dims: []int{w.N}}})
	if err != nil {
		return nil, err
	}
	es, err := w.Executables(dev)
	if err != nil {
		workloads.FinalizeAll(ins)
		return nil, err
	}
	return &chainInstance{w: w, name: w.String() + " on " + dev.Name, execs: es, x: ins[0].(*tensors.Tensor), x32: x32}, nil
}

type chainInstance struct {
	w     ElementwiseChain
	name  string
	execs []*graph.Exec
	x     *tensors.Tensor
	x32   []float32
}

func (c *chainInstance) Compile() (time.Duration, error) {
	t0 := time.Now()
	for _, e := range c.execs {
		if err := workloads.Precompile(e, c.x); err != nil {
			return 0, workloads.DeviceErr(err, "compiling %s", c.name)
		}
	}
	return time.Since(t0), nil
}

// run executes the chain and returns the final output (the caller frees it).
func (c *chainInstance) run() (*tensors.Tensor, error) {
	return workloads.RunSequence(c.x, len(c.execs), c.name, func(i int, h *tensors.Tensor) ([]*tensors.Tensor, error) {
		return c.execs[i].Exec(h)
	})
}

func (c *chainInstance) Run() error { return workloads.RunFreed(c.run) }

func (c *chainInstance) Check() (float64, error) { return workloads.CheckRun(c.run, c.reference) }

// reference is the chain applied to x in float64.
func (c *chainInstance) reference() []float64 {
	want := workloads.RoundTo(c.x32, c.w.Type)
	for i, v := range want {
		for k := range c.w.Ops {
			if k%2 == 0 {
				v *= ChainA
			} else {
				v += ChainB
			}
		}
		want[i] = v
	}
	return want
}

func (c *chainInstance) Close() {
	for _, e := range c.execs {
		e.Finalize()
	}
	_ = c.x.FinalizeAll()
}
