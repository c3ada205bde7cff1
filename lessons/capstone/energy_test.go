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
			tab, err := EnergyTable(tc.run, tc.steps, DefaultPrices)
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
			if len(tab.Rows) != 3 || !strings.Contains(text, "kWh") || !strings.Contains(text, "pJ") || !strings.Contains(text, "$") || !strings.Contains(text, "declared price") {
				t.Fatalf("want 3 rows with J per FLOP and kWh:\n%s", text)
			}
			if err := gpumodel.CheckLabeled(text); err != nil {
				t.Errorf("%v\n%s", err, text)
			}
		})
	}
}

// Prices are declared, so a bad one is refused, and the dollars follow the price.
func TestPrices(t *testing.T) {
	step := results.Result{Label: "step", FLOPs: 1e9, Stats: results.Stats{N: 5, Median: 10 * time.Millisecond},
		Provenance: results.Provenance{Device: devices.CPU, Run: results.RunID()}}
	run := Run{Params: 125e6, Tokens: 10e9}
	if _, err := EnergyTable(run, []results.Result{step}, Prices{GPUHour: -1}); err == nil {
		t.Error("a negative price was accepted")
	}
	a, _ := EnergyTable(run, []results.Result{step}, Prices{GPUHour: 1, SocketHour: 1})
	b, _ := EnergyTable(run, []results.Result{step}, Prices{GPUHour: 2, SocketHour: 1})
	if a.Rows[2][6] == b.Rows[2][6] || a.Rows[1][6] != b.Rows[1][6] {
		t.Errorf("the H200's dollars must follow its price, the socket's not: %q %q / %q %q", a.Rows[2][6], b.Rows[2][6], a.Rows[1][6], b.Rows[1][6])
	}
	if r, err := EnergyRatio(run); err != nil || r < 5 || r > 200 {
		t.Errorf("socket ÷ H200 energy per FLOP = %v, %v: want one to two orders of magnitude", r, err)
	}
}
