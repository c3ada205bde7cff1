package workloads

import (
	"fmt"
	"math/rand/v2"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// MatMul multiplies an M×K matrix by a K×N matrix in Type: float64, float32, bfloat16 or float16.
//
// FLOPs = 2·M·N·K (one multiply and one add per term). Bytes = (M·K + K·N + M·N) × element size: read
// both inputs once, write the output once. Inputs are generated on the host in float32, uploaded
// already converted to Type, and stay on the device.
//
// A float32 matmul on xla:cuda runs on the tensor cores in TF32 (go-xla's default, like
// torch.backends.cuda.matmul.allow_tf32 = True); open devices.CUDANoTF32 for true float32.
// [Precision] says which one a device uses, and [ToleranceOf] widens the check to 1e-2 for TF32.
type MatMul struct {
	M, K, N int          // (M×K) @ (K×N) → M×N
	Type    dtypes.DType // element type of inputs and output
	Seed    uint64       // input seed; 0 draws a fresh one
}

// Square returns an n×n @ n×n matmul in dtype dt.
func Square(n int, dt dtypes.DType) MatMul { return MatMul{M: n, K: n, N: n, Type: dt} }

// Name returns "matmul".
func (w MatMul) Name() string { return "matmul" }

// DType returns the element type.
func (w MatMul) DType() dtypes.DType { return w.Type }

// Params returns {"m", "k", "n"}.
func (w MatMul) Params() map[string]int { return map[string]int{"m": w.M, "k": w.K, "n": w.N} }

// String describes the matmul, e.g. "matmul 512×512 @ 512×512 float32".
func (w MatMul) String() string {
	return fmt.Sprintf("matmul %d×%d @ %d×%d %s", w.M, w.K, w.K, w.N, w.Type)
}

// FLOPs is 2·M·N·K.
func (w MatMul) FLOPs() float64 { return 2 * float64(w.M) * float64(w.N) * float64(w.K) }

// Bytes is (M·K + K·N + M·N) × element size.
func (w MatMul) Bytes() float64 {
	return (float64(w.M)*float64(w.K) + float64(w.K)*float64(w.N) + float64(w.M)*float64(w.N)) * float64(w.Type.Size())
}

func (w MatMul) usesDot() bool { return true }

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

// checkRows is how many output rows Check compares with the float64 reference when M is large: the
// reference is plain Go (about 1 GFLOP/s), so a 2048³ check would take 15 s; 64 random rows of fresh
// random inputs catch any systematic error at a fraction of that.
const checkRows = 64

// Prepare builds the matmul on dev and uploads random inputs.
func (w MatMul) Prepare(dev *devices.Device) (Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if ok, why := Supports(dev, w.Type); !ok {
		return nil, fmt.Errorf("workloads: %s on %s: %s", w, dev.Name, why)
	}
	// Host staging: float32 values plus the converted host tensors.
	if err := CheckFits(dev, w.String(), w.Bytes(), 4*(float64(w.M)*float64(w.K)+float64(w.K)*float64(w.N))+w.Bytes()); err != nil {
		return nil, err
	}
	seed := SeedOrFresh(w.Seed)
	a32 := RandomFloats(w.M*w.K, seed)
	b32 := RandomFloats(w.K*w.N, seed+1)
	m, k, n, dt := w.M, w.K, w.N, w.Type
	return NewExecInstance(dev, w.String(), "matmul", dt, []HostInput{{Values: a32, Dims: []int{m, k}}, {Values: b32, Dims: []int{k, n}}},
		func(x, y *graph.Node) *graph.Node { return graph.MatMul(x, y) },
		func(outs []*tensors.Tensor) (float64, error) {
			got, err := toFloat64(outs[0])
			if err != nil {
				return 0, err
			}
			rows := checkedRows(m, seed)
			ra := make([]float64, 0, len(rows)*k)
			gotRows := make([]float64, 0, len(rows)*n)
			for _, i := range rows {
				ra = append(ra, RoundTo(a32[i*k:(i+1)*k], dt)...)
				gotRows = append(gotRows, got[i*n:(i+1)*n]...)
			}
			return relErr(gotRows, refMatMul(ra, RoundTo(b32, dt), len(rows), k, n)), nil
		})
}

// checkedRows picks the output rows Check compares: all of them up to checkRows, else checkRows
// distinct random rows.
func checkedRows(m int, seed uint64) []int {
	if m <= checkRows {
		rows := make([]int, m)
		for i := range rows {
			rows[i] = i
		}
		return rows
	}
	r := rand.New(rand.NewPCG(seed, 42))
	return r.Perm(m)[:checkRows]
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
