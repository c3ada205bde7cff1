package capstone

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestPlannedFLOPs(t *testing.T) {
	if got := Planned.FLOPs(); got != 7.5e18 {
		t.Errorf("6·N·T = %g, want 7.5e18", got)
	}
	for _, r := range []Run{{0, 1e9}, {1e8, 0}, {1e20, 1e9}} {
		if r.Validate() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}

func TestStepRefused(t *testing.T) {
	def := StepShape{Batch: 256, Hidden: 512} // notebooks/11-capstone.ipynb
	if err := def.Validate(); err != nil {
		t.Fatalf("the cell's default step is refused: %v", err)
	}
	if def != DefaultStep(experiments.Laptop) {
		t.Errorf("the cell's default %+v is not DefaultStep(Laptop) %+v", def, DefaultStep(experiments.Laptop))
	}
	for _, tc := range []struct {
		z    StepShape
		want string
	}{
		{StepShape{Batch: 1e9, Hidden: 512}, "batch 1000000000 refused before anything is allocated"},
		{StepShape{Batch: 0, Hidden: 512}, "batch 0 refused"},
		{StepShape{Batch: 256, Hidden: 1e9}, "hidden width 1000000000 refused"},
		{StepShape{Batch: 65536, Hidden: 8192}, "FLOPs refused"},
	} {
		err := tc.z.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.z, err, tc.want)
		}
		if _, err := StepHere(tc.z); err == nil {
			t.Errorf("StepHere ran a refused step %+v", tc.z)
		}
	}
}

func TestGridRefused(t *testing.T) {
	ok := DefaultGrid
	if err := ok.Validate(); err != nil {
		t.Fatalf("the default grid is refused: %v", err)
	}
	for _, tc := range []struct {
		edit func(*Grid)
		want string
	}{
		{func(g *Grid) { g.Batches = []int{1e9} }, "batch 1000000000 refused before allocating"},
		{func(g *Grid) { g.Batches = []int{0} }, "refused"},
		{func(g *Grid) { g.DTypes = []string{"int8"} }, "dtype"},
		{func(g *Grid) { g.Workers = []int{0} }, "workers"},
		{func(g *Grid) { g.Batches = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13} }, "configurations"},
		{func(g *Grid) { g.Steps = 0 }, "steps"},
		{func(g *Grid) { g.PerSample = time.Second }, "per sample"},
		{func(g *Grid) { g.Batches = nil }, "at least one"},
	} {
		g := DefaultGrid
		g.Batches = append([]int(nil), g.Batches...)
		tc.edit(&g)
		err := g.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", g, err, tc.want)
		}
		if _, err := Tune(g, nil); err == nil {
			t.Errorf("Tune ran a refused grid %+v", g)
		}
	}
}

func TestCheck(t *testing.T) {
	ps := []Point{
		{Config: Config{32, "float32", 1}, SamplesPerSec: 1000},
		{Config: Config{512, "float32", 2}, SamplesPerSec: 9000},
		{Config: Config{512, "bfloat16", 2}, SamplesPerSec: 8500},
	}
	for _, tc := range []struct {
		pick Config
		want string
	}{
		{Config{}, "No answer yet"},
		{Config{512, "float32", 2}, "Right"},
		{Config{512, "bfloat16", 2}, "Right"}, // within 10%
		{Config{32, "float32", 1}, "larger batch"},
	} {
		got, err := Check(tc.pick, ps)
		if err != nil || !strings.Contains(got, tc.want) {
			t.Errorf("Check(%v) = %q, %v; want %q", tc.pick, got, err, tc.want)
		}
	}
	if _, err := Check(Config{7, "float32", 1}, ps); err == nil {
		t.Error("a pick outside the grid was graded")
	}
	if _, err := TuneChart(ps); err != nil {
		t.Error(err)
	}
}

func TestPlanChart(t *testing.T) {
	here := results.Result{FLOPs: 26e9, Stats: results.Stats{Median: time.Second}}
	here.Provenance.Device = "xla:cpu"
	tests := []struct {
		name    string
		run     Run
		steps   []results.Result
		wantErr string
	}{
		{"planned run, measured step", Planned, []results.Result{here}, ""},
		{"no step measured: the model band alone", Planned, nil, ""},
		{"refused run", Run{Params: 0, Tokens: 1e9}, []results.Result{here}, "parameters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlanChart(tc.run, tc.steps)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || p == nil {
				t.Fatalf("PlanChart: %v", err)
			}
		})
	}
}
