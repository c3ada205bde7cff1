package workloads

import (
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"testing"

	"github.com/gomlx/compute/dtypes"
)

// Every workload of this package counts its work, has a dtype and shape parameters: a result
// measured from any of them carries all three (FLOPsOf, DTypeOf and ParamsOf read them).
var _ = []interface {
	Workload
	Counter
	Typed
	Shaped
}{MatMul{}, LayerNorm{}, Elementwise{}, Copy{}, Passes{}, ElementwiseChain{}, TiedForward{}, Transfer{},
	MLP{}, MLPForward{}, MLPPart{}, GPTPart{}, BudgetMix{}}

// untyped is a workload with only the small interface: the helpers say "unknown", never a panic.
type untyped struct{}

func (untyped) Name() string                              { return "untyped" }
func (untyped) String() string                            { return "untyped" }
func (untyped) Prepare(*devices.Device) (Instance, error) { return nil, nil }

func TestOptionalInterfaces(t *testing.T) {
	var w Workload = untyped{}
	if FLOPsOf(w) != 0 || BytesOf(w) != 0 || DTypeOf(w) != dtypes.InvalidDType || ParamsOf(w) != nil || DTypeName(DTypeOf(w)) != "" {
		t.Errorf("a workload without the optional interfaces: FLOPs %g, bytes %g, dtype %v, params %v", FLOPsOf(w), BytesOf(w), DTypeOf(w), ParamsOf(w))
	}
	m := Square(64, dtypes.BFloat16)
	if FLOPsOf(m) != m.FLOPs() || BytesOf(m) != m.Bytes() || DTypeOf(m) != dtypes.BFloat16 || ParamsOf(m)["m"] != 64 || DTypeName(DTypeOf(m)) != "bfloat16" {
		t.Errorf("%s: FLOPs %g, bytes %g, dtype %v, params %v", m, FLOPsOf(m), BytesOf(m), DTypeOf(m), ParamsOf(m))
	}
}
