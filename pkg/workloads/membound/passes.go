package membound

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/internal/loop"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Passes sweeps one array of N elements Passes times inside a single executable (an XLA while loop):
// each pass reads the whole array and writes it back, as "copy" (x ← −x) or "axpb" (x ← a·x + b).
// Because every pass touches the same N elements, the array's size is the working set, and a small
// array is served from a cache (L1, L2, L3 on a CPU; L2 on a GPU) rather than from main memory: the
// bandwidth it reaches measures the level it fits in. Many passes per execution amortize the cost
// of launching it.
//
// FLOPs = Passes × N × 2·FMAs for axpb (copy: 0). Bytes = Passes × 2·N × element size. WorkingSet =
// N × element size.
type Passes struct {
	N, Passes int
	Op        string // "copy" or "axpb"
	// FMAs is how many dependent multiply-adds axpb does per element per pass (0 means 1), fused
	// into the pass's one kernel: with many, a cache-resident pass is bound by arithmetic, not
	// memory, and measures the device's sustained multiply-add rate.
	FMAs int
	Type dtypes.DType
	Seed uint64
}

// The axpb constants of Passes: a contraction (|a| < 1), so rounding errors do not grow with the
// number of passes, and the values stay near b/(1−a).
const (
	PassesA = 0.5
	PassesB = 0.25
)

// Name returns "passes-copy" or "passes-axpb".
func (w Passes) Name() string { return "passes-" + w.Op }

// DType is the element type.
func (w Passes) DType() dtypes.DType { return w.Type }

// Params are n, passes and the working set in bytes.
func (w Passes) Params() map[string]int {
	return map[string]int{"n": w.N, "passes": w.Passes, "fmas": w.fmas(), "working_set": int(w.WorkingSet())}
}

// String is e.g. "axpb × 64 passes over 16.0 KiB float32" ("16 FMAs × 64 passes …" with FMAs).
func (w Passes) String() string {
	op := w.Op
	if w.Op == "axpb" && w.fmas() > 1 {
		op = fmt.Sprintf("%d FMAs", w.fmas())
	}
	return fmt.Sprintf("%s × %d passes over %s %s", op, w.Passes, units.BytesFixed(w.WorkingSet()), w.Type)
}

// WorkingSet is the array's size in bytes.
func (w Passes) WorkingSet() float64 { return float64(w.N) * float64(w.Type.Size()) }

// FLOPs is 2·N per pass for axpb, 0 for copy.
func (w Passes) FLOPs() float64 {
	if w.Op == "copy" {
		return 0
	}
	return 2 * float64(w.fmas()) * float64(w.N) * float64(w.Passes)
}

func (w Passes) fmas() int { return max(w.FMAs, 1) }

// Bytes is 2·N elements per pass (read and write).
func (w Passes) Bytes() float64 { return 2 * w.WorkingSet() * float64(w.Passes) }

// Validate reports bad sizes, ops or dtypes.
func (w Passes) Validate() error {
	if w.N <= 0 || w.Passes <= 0 || w.FMAs < 0 {
		return fmt.Errorf("workloads: passes needs N > 0 and Passes > 0, got %d, %d", w.N, w.Passes)
	}
	if w.Op != "copy" && w.Op != "axpb" {
		return fmt.Errorf("workloads: passes op must be \"copy\" or \"axpb\", got %q", w.Op)
	}
	if !w.Type.IsFloat() {
		return fmt.Errorf("workloads: passes needs a floating-point dtype, got %s", w.Type)
	}
	return nil
}

// Prepare builds the loop on dev and uploads a random array.
func (w Passes) Prepare(dev *devices.Device) (workloads.Instance, error) {
	passes, op, k := w.Passes, w.Op, w.fmas()
	body := func(x *graph.Node) *graph.Node {
		if op == "copy" {
			return graph.Neg(x)
		}
		for range k {
			x = graph.AddScalar(graph.MulScalar(x, PassesA), PassesB)
		}
		return x
	}
	ref := func(v float64) float64 {
		for range passes * k {
			if op == "copy" {
				v = -v
			} else {
				v = PassesA*v + PassesB
			}
		}
		return v
	}
	return unaryInstance(dev, w, w.N, w.Type, w.Seed, w.Name(), func(x *graph.Node) *graph.Node {
		return loop.Repeat(x, passes, body)
	}, ref)
}
