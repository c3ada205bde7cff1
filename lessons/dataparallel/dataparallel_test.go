package dataparallel

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestZeROTable(t *testing.T) {
	m := Memory{Params: 800, Gradients: 800, Optimizer: 1600}
	_, rows := m.ZeROTable(4).Parts()
	want := []string{"3.1", "1.95", "1.37", "800"} // 3200, 2000, 1400, 800 bytes
	for i, r := range rows {
		if !strings.HasPrefix(r[4], want[i]) {
			t.Errorf("%s: per device %s, want %s", r[0], r[4], want[i])
		}
	}
	_, ex := ExchangeTable().Parts()
	if len(ex) != 3 || !strings.Contains(LinkAssumptions(), "not measurements") {
		t.Errorf("exchange table %v", ex)
	}
}

func TestOnCPU(t *testing.T) {
	dev := devicetest.OpenDevices(t, devices.CPUSplit, 2)
	tb, err := Check()
	rows := tb.Rows
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r[5] != "true" {
			t.Errorf("data-parallel step differs: %v", r)
		}
	}
	rs, err := AllReduceSweepOn(dev, 2, []int{256, 4096}, nil)
	if err != nil || len(rs) != 2 {
		t.Fatal(err)
	}
	if _, err := AllReduceChart(rs); err != nil {
		t.Error(err)
	}
	m, err := MeasureMemory(State{Embed: 64, Layers: 2, Heads: 4, Context: 64})
	if err != nil {
		t.Fatal(err)
	}
	if r := float64(m.Optimizer) / float64(m.Params); r < 2 || r > 2.01 {
		t.Errorf("Adam state %.3f× the parameters", r)
	}
}

// TestAdamRatio reads the kept state bytes from Metrics and, for a result saved before Metrics
// existed, from the Params.
func TestAdamRatio(t *testing.T) {
	for _, tc := range []struct {
		name    string
		r       results.Result
		want    float64
		wantErr bool
	}{
		{"metrics", results.Result{Metrics: map[string]float64{MetricParamsBytes: 1000, MetricOptimizerBytes: 2004}}, 2.004, false},
		{"old params", results.Result{Params: map[string]int{"params_bytes": 1000, "optimizer_bytes": 2004}}, 2.004, false},
		{"empty", results.Result{}, 0, true},
	} {
		got, err := AdamRatio(tc.r)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("%s: %v, %v; want %v, error %v", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}
