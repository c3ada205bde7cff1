package datamovement

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestTransfersRefused(t *testing.T) {
	if err := (Transfers{Sizes: []int{4 << 10, 1 << 20, 16 << 20}}).Validate(); err != nil {
		t.Fatalf("the cell's default sizes are refused: %v", err)
	}
	tests := []struct {
		t    Transfers
		want string
	}{
		{Transfers{Sizes: []int{1e9 * 8}}, "8000000000 bytes refused before anything is allocated"},
		{Transfers{Sizes: []int{0}}, "refused"},
		{Transfers{}, "at least one"},
		{Transfers{Sizes: make([]int, 13)}, "at most 12"},
	}
	for _, tc := range tests {
		err := tc.t.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.t, err, tc.want)
		}
		if _, err := TransfersHere(tc.t); err == nil {
			t.Errorf("TransfersHere ran refused sizes %+v", tc.t)
		}
	}
}

func TestDefaultsValid(t *testing.T) {
	for _, s := range []experiments.Scale{experiments.Laptop, experiments.GPU} {
		for name, v := range map[string]interface{ Validate() error }{
			"transfers": DefaultTransfers(s), "resident": DefaultResident(s), "loop": DefaultLoop(s), "matmul": DefaultMatMul(s),
		} {
			if err := v.Validate(); err != nil {
				t.Errorf("%s default %s refused: %v", s, name, err)
			}
		}
	}
}

func TestExperimentSizesRefused(t *testing.T) {
	ok := Model{Batch: 64, In: 256, Hidden: 512, Out: 16, Depth: 2}
	tests := []struct {
		name string
		run  func() ([]results.Result, error)
		want string
	}{
		{"transfer 13 copies", func() ([]results.Result, error) { return TransferOnEachDevice(Transfers{Sizes: make([]int, 13)}) }, "at most 12"},
		{"transfer 8 GB", func() ([]results.Result, error) { return TransferOnEachDevice(Transfers{Sizes: []int{8e9}}) }, "refused before anything is allocated"},
		{"batch 1e9", func() ([]results.Result, error) {
			return ResidentOnEachDevice(Model{Batch: 1e9, In: 256, Hidden: 512, Out: 16, Depth: 2})
		}, "batch 1000000000 refused"},
		{"zero width", func() ([]results.Result, error) {
			return ResidentOnEachDevice(Model{Batch: 64, In: 256, Out: 16, Depth: 2})
		}, "Hidden 0 refused"},
		{"too much memory", func() ([]results.Result, error) {
			return ResidentOnEachDevice(Model{Batch: 16384, In: 16384, Hidden: 16384, Out: 16, Depth: 8})
		}, "over the"},
		{"depth 0", func() ([]results.Result, error) {
			return SyncOnEachDevice(Loop{Model: Model{Batch: 1, In: 1, Hidden: 1, Out: 1}, Steps: 30})
		}, "depth 0 refused"},
		{"1e9 steps", func() ([]results.Result, error) { return SyncOnEachDevice(Loop{Model: ok, Steps: 1e9}) }, "1000000000 steps refused"},
		{"negative host work", func() ([]results.Result, error) { return SyncOnEachDevice(Loop{Model: ok, Steps: 30, HostWorkUS: -1}) }, "host work per step refused"},
		{"side 1e9", func() ([]results.Result, error) { return UnsyncedOnEachDevice(MatMul{N: 1e9}) }, "side 1000000000 refused"},
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
