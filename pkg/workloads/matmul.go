package workloads

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/devices"
)

// MatMul multiplies an M×K matrix by a K×N matrix in DType.
//
// FLOPs = 2·M·N·K (one multiply and one add per term). Bytes = (M·K + K·N + M·N) × element size: read
// both inputs once, write the output once. Inputs are generated on the host in float32, uploaded
// already converted to DType, and stay on the device.
type MatMul struct {
	M, K, N int
	Type    dtypes.DType
	Seed    uint64 // input seed; 0 picks 1
}

// Square returns an n×n @ n×n matmul in dtype dt.
func Square(n int, dt dtypes.DType) MatMul { return MatMul{M: n, K: n, N: n, Type: dt} }

func (w MatMul) Name() string         { return "matmul" }
func (w MatMul) DType() dtypes.DType  { return w.Type }
func (w MatMul) Params() map[string]int { return map[string]int{"m": w.M, "k": w.K, "n": w.N} }
func (w MatMul) String() string {
	return fmt.Sprintf("matmul %d×%d @ %d×%d %s", w.M, w.K, w.K, w.N, w.Type)
}
func (w MatMul) FLOPs() float64 { return 2 * float64(w.M) * float64(w.N) * float64(w.K) }
func (w MatMul) Bytes() float64 {
	return float64(w.M*w.K+w.K*w.N+w.M*w.N) * float64(w.Type.Size())
}

// Validate reports invalid shapes or dtypes.
func (w MatMul) Validate() error {
	if w.M <= 0 || w.K <= 0 || w.N <= 0 {
		return fmt.Errorf("workloads: matmul needs positive sizes, got M=%d K=%d N=%d", w.M, w.K, w.N)
	}
	if !w.Type.IsFloat() {
		return fmt.Errorf("workloads: matmul needs a floating-point dtype, got %s", w.Type)
	}
	return nil
}

// Prepare builds the matmul on dev and uploads random inputs.
func (w MatMul) Prepare(dev *devices.Device) (Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if ok, why := Supports(dev, w.Type); !ok {
		return nil, fmt.Errorf("workloads: %s on %s: %s", w, dev.Name, why)
	}
	seed := w.Seed
	if seed == 0 {
		seed = 1
	}
	a32 := randomFloats(w.M*w.K, seed)
	b32 := randomFloats(w.K*w.N, seed+1)
	a, err := castOnDevice(dev, a32, w.Type, w.M, w.K)
	if err != nil {
		return nil, err
	}
	b, err := castOnDevice(dev, b32, w.Type, w.K, w.N)
	if err != nil {
		return nil, err
	}
	exec, err := newExec(dev, "matmul", func(x, y *graph.Node) *graph.Node { return graph.MatMul(x, y) })
	if err != nil {
		return nil, err
	}
	m, k, n, dt := w.M, w.K, w.N, w.Type
	return &execInstance{exec: exec, inputs: []any{a, b}, check: func(outs []*tensors.Tensor) (float64, error) {
		got, err := toFloat64(outs[0])
		if err != nil {
			return 0, err
		}
		return relErr(got, refMatMul(roundTo(a32, dt), roundTo(b32, dt), m, k, n)), nil
	}}, nil
}

// refMatMul is the float64 host reference.
func refMatMul(a, b []float64, m, k, n int) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		row := out[i*n : (i+1)*n]
		for p := 0; p < k; p++ {
			av := a[i*k+p]
			bp := b[p*n : (p+1)*n]
			for j := range row {
				row[j] += av * bp[j]
			}
		}
	}
	return out
}
