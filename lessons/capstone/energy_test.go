package capstone

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
)

// The energy table: refused without a live CPU step or with an invalid run; with one, every row
// has an energy per FLOP, the H200's is below the CPU's, and modeled numbers carry their label.
func TestEnergyTable(t *testing.T) {
	step := results.Result{Label: "step", FLOPs: 1e9, Stats: results.Stats{N: 5, Median: 10 * time.Millisecond},
		Provenance: results.Provenance{Device: devices.CPU, Run: results.RunID()}} // 100 GFLOP/s
	run := Run{Params: 125e6, Tokens: 10e9}
	cases := []struct {
		name  string
		run   Run
		steps []results.Result
		fails bool
	}{
		{"a live step", run, []results.Result{step}, false},
		{"no step", run, nil, true},
		{"no run", Run{}, []results.Result{step}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := EnergyTable(tc.run, tc.steps)
			if tc.fails {
				if err == nil {
					t.Fatal("accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			text := tab.String()
			if len(tab.Rows) != 3 || !strings.Contains(text, "kWh") || !strings.Contains(text, "pJ") {
				t.Fatalf("want 3 rows with J per FLOP and kWh:\n%s", text)
			}
			if err := gpumodel.CheckLabeled(text); err != nil {
				t.Errorf("%v\n%s", err, text)
			}
		})
	}
}
