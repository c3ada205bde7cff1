package workloads

import (
	"fmt"
	"math"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads/internal/loop"
)

// BudgetMix is one graph with two independent parts, so that its FLOPs and its bytes can be
// changed separately (lesson 01's first measurement):
//
//   - a chain of Chain matrix products y = x·W·W·…·W of Side×Side matrices: its intermediates are
//     small enough to stay in cache, so more links add FLOPs and no memory traffic;
//   - Passes sweeps v ← −v over N elements inside the executable (an XLA while loop, as
//     membound.Passes, the bandwidth ceiling): bytes and no arithmetic worth counting. The output is
//     allocated once per execution, so its first touch (on a CPU, page faults on fresh memory) is
//     spread over every pass instead of being most of one.
//
// FLOPs = Chain·2·Side³. Bytes = (3·Side² + 2·N·Passes) × element size: x and W read, y written; v
// read and written each pass. Doubling Chain doubles the FLOPs at the same bytes; doubling Passes
// (BytesDoubled) doubles the bytes at the same FLOPs and the same working set.
type BudgetMix struct {
	Side, Chain int          // the matrix products: Chain of them, Side×Side
	N           int          // elements swept
	Passes      int          // sweeps over them (0 means 1)
	Type        dtypes.DType // element type
	Seed        uint64       // input seed; 0 draws a fresh one
}

// Name returns "budget-mix".
func (w BudgetMix) Name() string { return "budget-mix" }

// DType returns the element type.
func (w BudgetMix) DType() dtypes.DType { return w.Type }

// Params returns {"side", "chain", "n", "passes"}.
func (w BudgetMix) Params() map[string]int {
	return map[string]int{"side": w.Side, "chain": w.Chain, "n": w.N, "passes": w.passes()}
}

func (w BudgetMix) passes() int { return max(w.Passes, 1) }

// String describes it, e.g. "4 products of 512×512 + 2 passes over 64.0 MiB float32".
func (w BudgetMix) String() string {
	p := "1 pass"
	if w.passes() > 1 {
		p = fmt.Sprintf("%d passes", w.passes())
	}
	return fmt.Sprintf("%d products of %d×%d + %s over %s %s", w.Chain, w.Side, w.Side, p,
		units.BytesFixed(float64(w.N)*float64(w.Type.Size())), w.Type)
}

// FLOPs is Chain·2·Side³.
func (w BudgetMix) FLOPs() float64 { s := float64(w.Side); return float64(w.Chain) * 2 * s * s * s }

// Bytes is (3·Side² + 2·N·Passes) × element size.
func (w BudgetMix) Bytes() float64 {
	s := float64(w.Side)
	return (3*s*s + 2*float64(w.N)*float64(w.passes())) * float64(w.Type.Size())
}

// held is the memory the graph holds on the device, in bytes: x, W and y, v and the loop's copy of it.
func (w BudgetMix) held() float64 {
	return float64(3*w.Side*w.Side+2*w.N) * float64(w.Type.Size())
}

// FLOPsDoubled is the same graph with twice the products: twice the FLOPs, the same bytes.
func (w BudgetMix) FLOPsDoubled() BudgetMix { w.Chain *= 2; return w }

// BytesDoubled is the same graph with twice the passes, over a few more elements so that the
// matrices' bytes double too: twice the bytes (to rounding), the same FLOPs, nearly the same working
// set. (P' = 2·P and N' = N + 3·Side²/(4·P), so that 3·Side² + 2·N'·P' = 2·(3·Side² + 2·N·P).)
func (w BudgetMix) BytesDoubled() BudgetMix {
	p := w.passes()
	w.N += (3*w.Side*w.Side + 2*p) / (4 * p) // rounded to the nearest element
	w.Passes = 2 * p
	return w
}

// Validate reports invalid sizes or dtypes.
func (w BudgetMix) Validate() error {
	if w.Side <= 0 || w.Chain <= 0 || w.N <= 0 || w.Passes < 0 {
		return fmt.Errorf("workloads: budget mix needs positive Side, Chain and N and Passes ≥ 0, got %d, %d, %d, %d", w.Side, w.Chain, w.N, w.Passes)
	}
	if !w.Type.IsFloat() {
		return fmt.Errorf("workloads: budget mix needs a floating-point dtype, got %s", w.Type)
	}
	return nil
}

// Prepare builds the graph on dev and uploads random inputs; W is scaled by √(3/Side) so that the
// chain neither grows nor vanishes.
func (w BudgetMix) Prepare(dev *devices.Device) (Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if ok, why := Supports(dev, w.Type); !ok {
		return nil, fmt.Errorf("workloads: %s on %s: %s", w, dev.Name, why)
	}
	s, chain, n, passes, dt := w.Side, w.Chain, w.N, w.passes(), w.Type
	held := w.held()
	if err := CheckFits(dev, w.String(), held, 4*float64(2*s*s+n)+held); err != nil {
		return nil, err
	}
	seed := SeedOrFresh(w.Seed)
	x32, w32, v32 := RandomFloats(s*s, seed), RandomFloats(s*s, seed+1), RandomFloats(n, seed+2)
	scale := float32(math.Sqrt(3 / float64(s)))
	for i := range w32 {
		w32[i] *= scale
	}
	return NewExecInstance(dev, w.String(), "budget-mix", dt, []HostInput{{Values: x32, Dims: []int{s, s}}, {Values: w32, Dims: []int{s, s}}, {Values: v32, Dims: []int{n}}},
		func(x, wt, v *graph.Node) []*graph.Node {
			y := x
			for range chain {
				y = graph.MatMul(y, wt)
			}
			return []*graph.Node{y, loop.Repeat(v, passes, graph.Neg)}
		},
		func(outs []*tensors.Tensor) (float64, error) {
			y, err := toFloat64(outs[0])
			if err != nil {
				return 0, err
			}
			z, err := toFloat64(outs[1])
			if err != nil {
				return 0, err
			}
			rows := checkedRows(s, seed)
			wr := RoundTo(w32, dt)
			want, got := make([]float64, 0, len(rows)*s), make([]float64, 0, len(rows)*s)
			for _, i := range rows {
				want = append(want, RoundTo(x32[i*s:(i+1)*s], dt)...)
				got = append(got, y[i*s:(i+1)*s]...)
			}
			for range chain {
				want = refMatMul(want, wr, len(rows), s, s)
			}
			negv := RoundTo(v32, dt)
			if passes%2 == 1 { // an even number of negations gives v back
				for i := range negv {
					negv[i] = -negv[i]
				}
			}
			return max(relErr(got, want), relErr(z, negv)), nil
		})
}
