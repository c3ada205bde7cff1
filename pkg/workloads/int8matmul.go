package workloads

import (
	"fmt"
	"math/rand/v2"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// Int8MatMul multiplies an M×K int8 matrix by a K×N int8 matrix into int32 sums: the inner product
// of a quantized model's layer (weights and activations rounded to 8-bit integers, a scale kept
// beside them), accumulated without overflow in 32 bits.
//
// FLOPs = 2·M·N·K integer operations (one multiply and one add per term: the course counts them
// like floating-point ones). Bytes = (M·K + K·N) × 1 + M·N × 4: read both int8 inputs once, write
// the int32 output once. The inputs are random integers in −127…127; Check recomputes a few random
// output rows (int8CheckRows) as exact integer sums on the host, so a relative error of 0 is the
// only right answer (Tolerance(Int8) is 0).
type Int8MatMul struct {
	M, K, N int    // (M×K) @ (K×N) → M×N
	Seed    uint64 // input seed; 0 draws a fresh one
}

// Name returns "matmul-int8".
func (w Int8MatMul) Name() string { return "matmul-int8" }

// DType returns Int8, the inputs' type.
func (w Int8MatMul) DType() dtypes.DType { return dtypes.Int8 }

// Params returns {"m", "k", "n"}.
func (w Int8MatMul) Params() map[string]int { return map[string]int{"m": w.M, "k": w.K, "n": w.N} }

// String describes the product, e.g. "matmul 1×1024 @ 1024×1024 int8→int32".
func (w Int8MatMul) String() string {
	return fmt.Sprintf("matmul %d×%d @ %d×%d int8→int32", w.M, w.K, w.K, w.N)
}

// FLOPs is 2·M·N·K.
func (w Int8MatMul) FLOPs() float64 { return 2 * float64(w.M) * float64(w.N) * float64(w.K) }

// Bytes is M·K + K·N (int8 in) + 4·M·N (int32 out).
func (w Int8MatMul) Bytes() float64 {
	return float64(w.M)*float64(w.K) + float64(w.K)*float64(w.N) + 4*float64(w.M)*float64(w.N)
}

func (w Int8MatMul) usesDot() bool { return true }

// Validate reports invalid shapes.
func (w Int8MatMul) Validate() error {
	if w.M <= 0 || w.K <= 0 || w.N <= 0 {
		return fmt.Errorf("workloads: int8 matmul needs positive sizes, got M=%d K=%d N=%d", w.M, w.K, w.N)
	}
	return nil
}

// int8CheckRows is how many output rows Check recomputes on the host: the integer reference is exact,
// so a few rows of fresh random inputs catch a wrong kernel without the seconds a 64-row check of a
// 2048-wide product would take.
const int8CheckRows = 8

// randomInt8s returns n integers in −127…127 from seed.
func randomInt8s(n int, seed uint64) []int8 {
	r := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	out := make([]int8, n)
	for i := range out {
		out[i] = int8(r.IntN(255) - 127)
	}
	return out
}

// Prepare builds the product on dev and uploads random int8 inputs. A backend without int8 or
// int32 arithmetic is an error that says so.
func (w Int8MatMul) Prepare(dev *devices.Device) (Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	for _, dt := range []dtypes.DType{dtypes.Int8, dtypes.Int32} {
		if ok, why := Supports(dev, dt); !ok {
			return nil, fmt.Errorf("workloads: %s on %s: %s", w, dev.Name, why)
		}
	}
	if err := CheckFits(dev, w.String(), w.Bytes(), 2*w.Bytes()); err != nil {
		return nil, err
	}
	seed := SeedOrFresh(w.Seed)
	a := randomInt8s(w.M*w.K, seed)
	b := randomInt8s(w.K*w.N, seed+1)
	ta, err := onDevice(dev, tensors.FromFlatDataAndDimensions(a, w.M, w.K))
	if err != nil {
		return nil, err
	}
	tb, err := onDevice(dev, tensors.FromFlatDataAndDimensions(b, w.K, w.N))
	if err != nil {
		_ = ta.FinalizeAll()
		return nil, err
	}
	exec, err := NewExec(dev, "matmul-int8", func(x, y *graph.Node) *graph.Node {
		return graph.Dot(x, y).WithOutputDType(dtypes.Int32).Product()
	})
	if err != nil {
		_ = ta.FinalizeAll()
		_ = tb.FinalizeAll()
		return nil, err
	}
	m, k, n := w.M, w.K, w.N
	check := func(outs []*tensors.Tensor) (float64, error) {
		if got := outs[0].DType(); got != dtypes.Int32 {
			return 0, fmt.Errorf("workloads: %s on %s returned %s, not int32", w, dev.Name, got)
		}
		var got []int32
		if err := outs[0].ConstFlatData(func(flat any) { got = append(got, flat.([]int32)...) }); err != nil {
			return 0, err
		}
		var want, diff []float64
		rows := checkedRows(m, seed)
		rows = rows[:min(len(rows), int8CheckRows)]
		for _, i := range rows {
			for j := 0; j < n; j++ {
				var s int32
				for p := 0; p < k; p++ {
					s += int32(a[i*k+p]) * int32(b[p*n+j])
				}
				want = append(want, float64(s))
				diff = append(diff, float64(got[i*n+j]))
			}
		}
		return relErr(diff, want), nil
	}
	return &execInstance{name: w.String() + " on " + dev.Name, exec: exec, inputs: []any{ta, tb}, check: check}, nil
}
