package workloads_test

import (
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
	"github.com/gpu-course/whygpu/pkg/workloads/launch"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
	"testing"

	"github.com/gomlx/compute/dtypes"
)

// Every workload of this package counts its work, has a dtype and shape parameters: a result
// measured from any of them carries all three (FLOPsOf, DTypeOf and ParamsOf read them).
var _ = []interface {
	workloads.Workload
	workloads.Counter
	workloads.Typed
	workloads.Shaped
}{workloads.MatMul{}, membound.LayerNorm{}, membound.Elementwise{}, membound.Copy{}, membound.Passes{}, launch.ElementwiseChain{}, launch.TiedForward{}, membound.Transfer{},
	workloads.MLP{}, workloads.MLPForward{}, workloads.MLPPart{}, gpt.GPTPart{}, workloads.BudgetMix{}}

// untyped is a workload with only the small interface: the helpers say "unknown", never a panic.
type untyped struct{}

func (untyped) Name() string                                        { return "untyped" }
func (untyped) String() string                                      { return "untyped" }
func (untyped) Prepare(*devices.Device) (workloads.Instance, error) { return nil, nil }

func TestOptionalInterfaces(t *testing.T) {
	var w workloads.Workload = untyped{}
	if workloads.FLOPsOf(w) != 0 || workloads.BytesOf(w) != 0 || workloads.DTypeOf(w) != dtypes.InvalidDType || workloads.ParamsOf(w) != nil || workloads.DTypeName(workloads.DTypeOf(w)) != "" {
		t.Errorf("a workload without the optional interfaces: FLOPs %g, bytes %g, dtype %v, params %v", workloads.FLOPsOf(w), workloads.BytesOf(w), workloads.DTypeOf(w), workloads.ParamsOf(w))
	}
	m := workloads.Square(64, dtypes.BFloat16)
	if workloads.FLOPsOf(m) != m.FLOPs() || workloads.BytesOf(m) != m.Bytes() || workloads.DTypeOf(m) != dtypes.BFloat16 || workloads.ParamsOf(m)["m"] != 64 || workloads.DTypeName(workloads.DTypeOf(m)) != "bfloat16" {
		t.Errorf("%s: FLOPs %g, bytes %g, dtype %v, params %v", m, workloads.FLOPsOf(m), workloads.BytesOf(m), workloads.DTypeOf(m), workloads.ParamsOf(m))
	}
}
