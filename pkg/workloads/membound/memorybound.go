package membound

import (
	"fmt"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// LayerNormEpsilon is the ε LayerNorm adds to the variance: y = (x−μ)/√(σ²+ε)·γ + β.
const LayerNormEpsilon = 1e-5

// LayerNorm normalizes each row of a Rows×Cols matrix to zero mean and unit variance, then scales by
// γ and shifts by β (both of length Cols): the memory-bound operation next to every GEMM of a
// transformer.
//
// FLOPs = 7·Rows·Cols: per element one add for the mean, a subtract, a square and an add for the
// variance, a multiply by 1/σ, a multiply by γ and an add of β. The per-row divisions and square
// roots (O(Rows)) are not counted. Bytes = (2·Rows·Cols + 2·Cols) × element size: read x, write y,
// read γ and β. At float32 that is 7/8 FLOP per byte, far below any device's ridge point.
//
// For bfloat16 and float16 the statistics are computed in float32, as real LayerNorm kernels do;
// data still moves in the 16-bit type.
type LayerNorm struct {
	Rows, Cols int          // x is Rows×Cols, normalized along Cols
	Type       dtypes.DType // element type of x, γ, β and y
	Seed       uint64       // input seed; 0 draws a fresh one
}

// Name returns "layernorm".
func (w LayerNorm) Name() string { return "layernorm" }

// DType returns the element type.
func (w LayerNorm) DType() dtypes.DType { return w.Type }

// Params returns {"rows", "cols"}.
func (w LayerNorm) Params() map[string]int { return map[string]int{"rows": w.Rows, "cols": w.Cols} }

// String describes it, e.g. "layernorm 8192×4096 float32".
func (w LayerNorm) String() string { return fmt.Sprintf("layernorm %d×%d %s", w.Rows, w.Cols, w.Type) }

// FLOPs is 7·Rows·Cols.
func (w LayerNorm) FLOPs() float64 { return 7 * float64(w.Rows) * float64(w.Cols) }

// Bytes is (2·Rows·Cols + 2·Cols) × element size.
func (w LayerNorm) Bytes() float64 {
	return (2*float64(w.Rows)*float64(w.Cols) + 2*float64(w.Cols)) * float64(w.Type.Size())
}

// Validate reports invalid shapes or dtypes.
func (w LayerNorm) Validate() error {
	if w.Rows <= 0 || w.Cols <= 0 {
		return fmt.Errorf("workloads: layernorm needs positive sizes, got Rows=%d Cols=%d", w.Rows, w.Cols)
	}
	if !w.Type.IsFloat() {
		return fmt.Errorf("workloads: layernorm needs a floating-point dtype, got %s", w.Type)
	}
	return nil
}

// Prepare builds the layernorm on dev and uploads random x, γ and β.
func (w LayerNorm) Prepare(dev *devices.Device) (workloads.Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if ok, why := workloads.Supports(dev, w.Type); !ok {
		return nil, fmt.Errorf("workloads: %s on %s: %s", w, dev.Name, why)
	}
	if err := workloads.CheckFits(dev, w.String(), w.Bytes(), 2*float64(w.Rows)*float64(w.Cols)*4); err != nil {
		return nil, err
	}
	seed := workloads.SeedOrFresh(w.Seed)
	x32 := workloads.RandomFloats(w.Rows*w.Cols, seed)
	g32 := workloads.RandomFloats(w.Cols, seed+1)
	b32 := workloads.RandomFloats(w.Cols, seed+2)
	dt, rows, cols := w.Type, w.Rows, w.Cols
	host := []workloads.HostInput{{Values: x32, Dims: []int{w.Rows, w.Cols}}, {Values: g32, Dims: []int{1, w.Cols}}, {Values: b32, Dims: []int{1, w.Cols}}}
	return workloads.NewExecInstance(dev, w.String(), "layernorm", dt, host, func(x, gamma, beta *graph.Node) *graph.Node {
		compute := dt
		if dt.Size() < 4 {
			compute = dtypes.Float32
			x, gamma, beta = graph.ConvertDType(x, compute), graph.ConvertDType(gamma, compute), graph.ConvertDType(beta, compute)
		}
		mean := graph.ReduceAndKeep(x, graph.ReduceMean, 1)
		d := graph.Sub(x, mean)
		variance := graph.ReduceAndKeep(graph.Square(d), graph.ReduceMean, 1)
		y := graph.Mul(d, graph.Rsqrt(graph.AddScalar(variance, LayerNormEpsilon)))
		y = graph.Add(graph.Mul(y, gamma), beta)
		if compute != dt {
			y = graph.ConvertDType(y, dt)
		}
		return y
	}, workloads.AgainstFirst(func() []float64 {
		return refLayerNorm(workloads.RoundTo(x32, dt), workloads.RoundTo(g32, dt), workloads.RoundTo(b32, dt), rows, cols)
	}))
}

func refLayerNorm(x, gamma, beta []float64, rows, cols int) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < rows; r++ {
		row := x[r*cols : (r+1)*cols]
		var mean float64
		for _, v := range row {
			mean += v
		}
		mean /= float64(cols)
		var variance float64
		for _, v := range row {
			variance += (v - mean) * (v - mean)
		}
		variance /= float64(cols)
		inv := 1 / math.Sqrt(variance+LayerNormEpsilon)
		for j, v := range row {
			out[r*cols+j] = (v-mean)*inv*gamma[j] + beta[j]
		}
	}
	return out
}

// Elementwise computes y = a·x + b over N elements (a = 1.5 and b = 0.25 are scalars baked into the
// graph): the simplest memory-bound operation, a contrast to matmul.
//
// FLOPs = 2·N (one multiply, one add; a fused multiply-add counts as two). Bytes = 2·N × element size:
// read x, write y. At float32 that is 1/4 FLOP per byte.
type Elementwise struct {
	N    int          // elements
	Type dtypes.DType // element type
	Seed uint64       // input seed; 0 draws a fresh one
}

// Elementwise's scalars: y = ElementwiseA·x + ElementwiseB.
const (
	ElementwiseA = 1.5
	ElementwiseB = 0.25
)

// Name returns "elementwise".
func (w Elementwise) Name() string { return "elementwise" }

// DType returns the element type.
func (w Elementwise) DType() dtypes.DType { return w.Type }

// Params returns {"n"}.
func (w Elementwise) Params() map[string]int { return map[string]int{"n": w.N} }

// String describes it, e.g. "y = a·x + b, 16777216 float32".
func (w Elementwise) String() string { return fmt.Sprintf("y = a·x + b, %d %s", w.N, w.Type) }

// FLOPs is 2·N.
func (w Elementwise) FLOPs() float64 { return 2 * float64(w.N) }

// Bytes is 2·N × element size.
func (w Elementwise) Bytes() float64 { return 2 * float64(w.N) * float64(w.Type.Size()) }

// Validate reports invalid shapes or dtypes.
func (w Elementwise) Validate() error {
	if w.N <= 0 {
		return fmt.Errorf("workloads: elementwise needs a positive N, got %d", w.N)
	}
	if !w.Type.IsFloat() {
		return fmt.Errorf("workloads: elementwise needs a floating-point dtype, got %s", w.Type)
	}
	return nil
}

// Prepare builds y = a·x + b on dev and uploads a random x.
func (w Elementwise) Prepare(dev *devices.Device) (workloads.Instance, error) {
	return unaryInstance(dev, w, w.N, w.Type, w.Seed, "elementwise",
		func(x *graph.Node) *graph.Node {
			return graph.AddScalar(graph.MulScalar(x, ElementwiseA), ElementwiseB)
		},
		func(v float64) float64 { return ElementwiseA*v + ElementwiseB })
}

// Copy copies N elements from one device buffer to another: the measured bandwidth ceiling of a
// device (what STREAM's "copy" measures).
//
// FLOPs = 0. Bytes = 2·N × element size: read N, write N. The graph is y = −x: XLA may elide a plain
// identity (returning the input buffer), never a negation, and flipping a sign bit costs a copy's
// traffic and no arithmetic worth counting.
type Copy struct {
	N    int          // elements
	Type dtypes.DType // element type
	Seed uint64       // input seed; 0 draws a fresh one
}

// Name returns "copy".
func (w Copy) Name() string { return "copy" }

// DType returns the element type.
func (w Copy) DType() dtypes.DType { return w.Type }

// Params returns {"n"}.
func (w Copy) Params() map[string]int { return map[string]int{"n": w.N} }

// String describes it, e.g. "copy 64 Mi float32 (256.0 MiB)".
func (w Copy) String() string {
	return fmt.Sprintf("copy %d %s (%s)", w.N, w.Type, units.BytesFixed(float64(w.N)*float64(w.Type.Size())))
}

// FLOPs is 0.
func (w Copy) FLOPs() float64 { return 0 }

// Bytes is 2·N × element size.
func (w Copy) Bytes() float64 { return 2 * float64(w.N) * float64(w.Type.Size()) }

// Validate reports invalid shapes or dtypes.
func (w Copy) Validate() error {
	if w.N <= 0 {
		return fmt.Errorf("workloads: copy needs a positive N, got %d", w.N)
	}
	if !w.Type.IsFloat() {
		return fmt.Errorf("workloads: copy needs a floating-point dtype, got %s", w.Type)
	}
	return nil
}

// Prepare builds the copy on dev and uploads a random source.
func (w Copy) Prepare(dev *devices.Device) (workloads.Instance, error) {
	return unaryInstance(dev, w, w.N, w.Type, w.Seed, "copy", graph.Neg, func(v float64) float64 { return -v })
}

// unaryInstance prepares a one-input elementwise graph over n random values and its host reference.
func unaryInstance(dev *devices.Device, w interface {
	workloads.Workload
	workloads.Counter
	Validate() error
}, n int, dt dtypes.DType, seed uint64, name string, fn func(*graph.Node) *graph.Node, ref func(float64) float64) (workloads.Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if ok, why := workloads.Supports(dev, dt); !ok {
		return nil, fmt.Errorf("workloads: %s on %s: %s", w, dev.Name, why)
	}
	// The memory it holds: input and output, and a loop's state for Passes, whose Bytes count the
	// traffic of every pass over the same array.
	held := w.Bytes()
	if p, ok := w.(Passes); ok {
		held = 3 * p.WorkingSet()
	}
	if err := workloads.CheckFits(dev, w.String(), held, float64(n)*4+held/2); err != nil {
		return nil, err
	}
	x32 := workloads.RandomFloats(n, workloads.SeedOrFresh(seed))
	return workloads.NewExecInstance(dev, w.String(), name, dt, []workloads.HostInput{{Values: x32, Dims: []int{n}}}, fn, workloads.AgainstFirst(func() []float64 {
		want := workloads.RoundTo(x32, dt)
		for i, v := range want {
			want[i] = ref(v)
		}
		return want
	}))
}
