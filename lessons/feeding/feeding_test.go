package feeding

import (
	"slices"
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
	"github.com/gpu-course/whygpu/pkg/workloads/train"
)

func TestFed(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		step, load time.Duration
		workers    int
		period     time.Duration
		util       float64
	}{
		{300 * ms, 400 * ms, 1, 400 * ms, 0.75}, // the source's example
		{300 * ms, 400 * ms, 2, 300 * ms, 1},
		{100 * ms, 400 * ms, 2, 200 * ms, 0.5},
		{100 * ms, 50 * ms, 0, 100 * ms, 1},
	} {
		p, u := Fed(c.step, c.load, c.workers)
		if p != c.period || u != c.util {
			t.Errorf("Fed(%v, %v, %d) = %v, %v; want %v, %v", c.step, c.load, c.workers, p, u, c.period, c.util)
		}
	}
	if n := WorkersNeeded(300*ms, 400*ms); n != 2 {
		t.Errorf("WorkersNeeded = %d, want 2", n)
	}
}

func TestActivity(t *testing.T) {
	rep := train.PipelineReport{Spans: []train.Span{
		{Kind: train.SpanWait, Start: 0, End: 10}, {Kind: train.SpanCompute, Start: 10, End: 20},
		{Kind: train.SpanCompute, Start: 30, End: 40}}, Wall: 40, Steps: 2}
	if got := len(activity(rep, 1)); got != 4 {
		t.Errorf("activity of one step has %d points, want 4", got)
	}
	if got := len(activity(rep, 5)); got != 8 {
		t.Errorf("activity of two steps has %d points, want 8", got)
	}
}

// TestOnGoBackend runs each experiment tiny on the pure-Go backend (no plugin needed).
func TestOnGoBackend(t *testing.T) {
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := workloads.MLP{Batch: 4, In: 8, Hidden: 8, Depth: 1, Out: 2, Type: dtypes.Float32}.NewTrainer(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	rep, err := train.FromPipeline(tr, data.Pipeline{Workers: 1, CostPerBatch: time.Millisecond}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TimelineChart(Timeline{Report: rep}, 3); err != nil {
		t.Errorf("TimelineChart: %v", err)
	}
	rs, err := LaunchBound(dev, DefaultTiny)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Params[ParamCalls] != 3*launchLayers || rs[1].Params[ParamCalls] != 1 {
		t.Errorf("LaunchBound = %+v", rs)
	}
	os, err := Oversubscription(dev, []int{1, 2}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(os) != 2 || os[1].Seconds() <= 0 {
		t.Errorf("Oversubscription = %+v", os)
	}
	// Latency runs from submit to finish, so Little's law holds: the jobs' summed latencies are the
	// workers' busy spans, at most workers × wall and at least the wall of the last one to finish.
	for _, r := range os {
		k, wall := float64(r.Params[ParamWorkers]), r.Stats.Median.Seconds()*4
		sum := metric(r, ParamLatUS) * 1e-6 * 4
		if sum > 1.001*k*wall || sum < 0.9*wall {
			t.Errorf("%d workers: latencies sum to %.3g s over a %.3g s run, want between the wall and %v× it", r.Params[ParamWorkers], sum, wall, k)
		}
	}
	for _, r := range os { // one wall time over the jobs: one sample, not four identical ones
		if !r.Stats.OneSample() || r.Stats.RunsPerSample != 4 {
			t.Errorf("%s: stats %+v, want one sample of 4 runs", r.Label, r.Stats)
		}
	}
	if _, err := OverChart(os); err != nil {
		t.Errorf("OverChart: %v", err)
	}
}

// TestTablesReadOldRecordings checks that results saved before Metrics existed (cores, kernels and
// fused ops among the Params) show the same rows as ones saved now.
func TestTablesReadOldRecordings(t *testing.T) {
	for _, tc := range []struct {
		name     string
		table    func([]results.Result) units.Table
		now, old results.Result
		col      int
		want     string
	}{
		{"sweep", SweepTable,
			results.Result{Params: map[string]int{ParamWorkers: 2}, Metrics: map[string]float64{ParamCores: 16, ParamStepUS: 100}},
			results.Result{Params: map[string]int{ParamWorkers: 2, ParamCores: 16}, Metrics: map[string]float64{ParamStepUS: 100}}, 1, "16"},
		{"oversubscription", OverTable,
			results.Result{Params: map[string]int{ParamWorkers: 4}, Metrics: map[string]float64{ParamCores: 2, ParamLatUS: 30}},
			results.Result{Params: map[string]int{ParamWorkers: 4, ParamCores: 2}, Metrics: map[string]float64{ParamLatUS: 30}}, 1, "2"},
		{"fusion", FusionTable,
			results.Result{Params: map[string]int{"fused": 1}, Metrics: map[string]float64{ParamKernels: 1, ParamFusedOps: 8}},
			results.Result{Params: map[string]int{"fused": 1, ParamKernels: 1, ParamFusedOps: 8}}, 7, "1 kernel, 8 ops fused (XLA's optimized HLO)"},
	} {
		_, want := tc.table([]results.Result{tc.now}).Parts()
		_, got := tc.table([]results.Result{tc.old}).Parts()
		if !slices.Equal(got[0], want[0]) || want[0][tc.col] != tc.want {
			t.Errorf("%s: old %q, now %q; want column %d %q", tc.name, got[0], want[0], tc.col, tc.want)
		}
	}
}
