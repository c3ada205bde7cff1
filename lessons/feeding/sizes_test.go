package feeding

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestDefaultsValid(t *testing.T) {
	for name, v := range map[string]interface{ Validate() error }{
		"tiny": DefaultTiny, "laptop chain": DefaultChain(experiments.Laptop), "GPU chain": DefaultChain(experiments.GPU), "oversub": DefaultOversub,
		"laptop net": DefaultNet(experiments.Laptop), "GPU net": DefaultNet(experiments.GPU),
		"laptop doubling": DefaultDoubling(experiments.Laptop), "GPU doubling": DefaultDoubling(experiments.GPU),
		"laptop loader": Loader{Workers: Workers(experiments.Laptop)}, "GPU loader": Loader{Workers: Workers(experiments.GPU)},
	} {
		if err := v.Validate(); err != nil {
			t.Errorf("default %s refused: %v", name, err)
		}
	}
	if got, want := DefaultNet(experiments.Laptop), (Net{Batch: 64, In: 256, Hidden: 256, Out: 16, Depth: 2}); got != want {
		t.Errorf("DefaultNet(Laptop) = %+v, want the notebook's %+v", got, want)
	}
	if got, want := DefaultDoubling(experiments.Laptop), (Doubling{Step: DefaultNet(experiments.Laptop), ChainN: 16 << 20, MatMulN: 1024}); got != want {
		t.Errorf("DefaultDoubling(Laptop) = %+v, want the notebook's %+v", got, want)
	}
	c := devices.NumCPU()
	if got, want := DefaultOversub.Workers(), slices.Compact([]int{1, c, 2 * c, 4 * c, 8 * c}); !slices.Equal(got, want) {
		t.Errorf("DefaultOversub.Workers() = %v, want %v", got, want)
	}
}

func TestExperimentSizesRefused(t *testing.T) {
	tests := []struct {
		name string
		run  func() ([]results.Result, error)
		want string
	}{
		{"tiny batch 1e9", func() ([]results.Result, error) { return LaunchHere(Tiny{Batch: 1e9, Width: 16, Layers: 16}) }, "batch 1000000000 refused"},
		{"tiny width 0", func() ([]results.Result, error) { return LaunchHere(Tiny{Batch: 1, Layers: 16}) }, "width 0 refused"},
		{"tiny 1000 layers", func() ([]results.Result, error) { return LaunchHere(Tiny{Batch: 1, Width: 16, Layers: 1000}) }, "1000 layers refused"},
		{"chain 1e9 values", func() ([]results.Result, error) { return FusionOnEachDevice(Chain{N: 1e9, Ops: 8}) }, "1000000000 values refused before anything is allocated"},
		{"chain no ops", func() ([]results.Result, error) { return FusionOnEachDevice(Chain{N: 1024}) }, "0 ops refused"},
		{"oversub 1e9× cores", func() ([]results.Result, error) {
			return OversubscriptionHere(Oversub{TimesCores: []int{1e9}, Jobs: 240})
		}, "1000000000× the cores refused"},
		{"oversub nothing", func() ([]results.Result, error) { return OversubscriptionHere(Oversub{Jobs: 240}) }, "at least one"},
		{"oversub 1e9 jobs", func() ([]results.Result, error) {
			return OversubscriptionHere(Oversub{TimesCores: []int{1}, Jobs: 1e9})
		}, "1000000000 jobs refused"},
		{"sweep 1e9 workers", func() ([]results.Result, error) { return SweepHere(Loader{Workers: []int{1, 1e9}}, nil) }, "1000000000 loader workers refused"},
		{"sweep nothing", func() ([]results.Result, error) { return SweepHere(Loader{}, nil) }, "at least one"},
		{"parts batch 1e9", func() ([]results.Result, error) {
			return StepPartsOnEachDevice(Net{Batch: 1e9, In: 256, Hidden: 256, Out: 16, Depth: 2}, nil)
		}, "batch 1000000000 refused"},
		{"parts depth 0", func() ([]results.Result, error) {
			return StepPartsOnEachDevice(Net{Batch: 64, In: 256, Hidden: 256, Out: 16}, nil)
		}, "depth 0 refused"},
		{"parts too much memory", func() ([]results.Result, error) {
			return StepPartsOnEachDevice(Net{Batch: 8192, In: 8192, Hidden: 8192, Out: 8192, Depth: 16}, nil)
		}, "over the"},
		{"double batch 1e9", func() ([]results.Result, error) {
			return DoubleOnEachDevice(Doubling{Step: Net{Batch: 1e9, In: 256, Hidden: 256, Out: 16, Depth: 2}, ChainN: 16 << 20, MatMulN: 1024}, nil)
		}, "batch 1000000000 refused"},
		{"double batch too big doubled", func() ([]results.Result, error) {
			return DoubleOnEachDevice(Doubling{Step: Net{Batch: MaxNetDim, In: 16, Hidden: 16, Out: 4, Depth: 1}, ChainN: 1024, MatMulN: 64}, nil)
		}, "runs it doubled"},
		{"double chain 1e9", func() ([]results.Result, error) {
			return DoubleOnEachDevice(Doubling{Step: DefaultNet(experiments.Laptop), ChainN: 1e9, MatMulN: 1024}, nil)
		}, "1000000000 values refused before anything is allocated"},
		{"double matmul 1e9", func() ([]results.Result, error) {
			return DoubleOnEachDevice(Doubling{Step: DefaultNet(experiments.Laptop), ChainN: 16 << 20, MatMulN: 1e9}, nil)
		}, "matmul n 1000000000 refused"},
	}
	for _, tc := range tests {
		rs, err := tc.run()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if len(rs) != 0 {
			t.Errorf("%s: measured %d results of refused sizes", tc.name, len(rs))
		}
	}
}
