package roofline

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestLevelsAssignsWorkingSets(t *testing.T) {
	caches := []devices.Cache{{Level: 1, Type: "Data", Bytes: 32 << 10}, {Level: 2, Type: "Unified", Bytes: 1 << 20}, {Level: 3, Type: "Unified", Bytes: 32 << 20}}
	mk := func(ws int, gbps float64) results.Result {
		r := results.Result{Workload: "passes-copy", Params: map[string]int{"working_set": ws, "fmas": 1}, Bytes: gbps * 1e9}
		r.Provenance.Device = "xla:cpu"
		r.Stats.Median = 1e9 // 1 s: BytesPerSec = Bytes
		return r
	}
	rs := []results.Result{mk(16<<10, 80), mk(64<<10, 60), mk(256<<10, 40), mk(4<<20, 20), mk(48<<20, 12), mk(128<<20, 8)}
	got := Levels(rs, "xla:cpu", caches)
	want := []struct {
		name string
		n    int
		bw   float64
	}{{"L1d", 1, 80e9}, {"L2", 2, 60e9}, {"L3", 1, 20e9}, {"memory", 1, 8e9}}
	if len(got) != len(want) {
		t.Fatalf("levels %+v", got)
	}
	for i, w := range want {
		if got[i].Name != w.name || len(got[i].Sets) != w.n || got[i].Bandwidth != w.bw {
			t.Errorf("level %d = %+v, want %+v", i, got[i], w)
		}
	}
	if l := Levels(rs, "xla:cpu", nil); len(l) != 1 || l[0].Name != "memory" || len(l[0].Sets) != 6 {
		t.Errorf("without caches: %+v", l)
	}
}

func TestHierarchyShort(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	s := HierarchySizes{WorkingSets: []int{16 << 10, 1 << 20}, Ops: []string{"copy", "axpb"}, MinTraffic: 4 << 20, MinPasses: 2, PairFrom: 1 << 20, PairPasses: 4}
	rs, err := Hierarchy(dev, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 5 {
		t.Fatalf("%d results", len(rs))
	}
	for _, r := range rs {
		if !r.Correct() {
			t.Errorf("%s: rel err %g", r.Label, r.RelErr)
		}
		if v, ok := r.Metric(MetricStream); isSweep(r) && r.Params["working_set"] >= s.PairFrom && (!ok || v <= 0) {
			t.Errorf("%s: no streaming rate (the marginal rate of its passes)", r.Label)
		}
	}
	if r := rs[0]; r.Params["passes"] != 128 || r.Bytes != 2*16384*128 {
		t.Errorf("16 KiB copy: %d passes, %g bytes", r.Params["passes"], r.Bytes)
	}
	if _, err := HierarchyChart(rs); err != nil {
		t.Error(err)
	}
	caches, _ := devices.CPUCaches()
	if _, err := CacheRoofline(rs, dev.Name, caches); err != nil {
		t.Error(err)
	}
	if f := FMARows(rs); len(f) != 1 || f[0].FMAChains <= 0 || f[0].ModelPeak <= 0 {
		t.Errorf("FMA rows %+v", f)
	}
	if h := HierarchyFor(experiments.GPU); h.WorkingSets[len(h.WorkingSets)-1] != 1<<30 {
		t.Errorf("GPU sweep ends at %d", h.WorkingSets[len(h.WorkingSets)-1])
	}
}

// TestLevelTableSaysWhenACacheReadsNoFaster: a cache row at or below the memory row gets a note
// that says why (review 4: "L3 41.3 GB/s" under "memory 49.9 GB/s" with no remark); ordered rows get none.
func TestLevelTableSaysWhenACacheReadsNoFaster(t *testing.T) {
	l3, mem := Level{Name: "L3", Bytes: 32 << 20, Bandwidth: 41.3e9}, Level{Name: "memory", Bandwidth: 49.9e9}
	if s := LevelTable([]Level{l3, mem}).String(); !strings.Contains(s, "Here L3 read no faster than memory") {
		t.Errorf("no note for an L3 row below memory:\n%s", s)
	}
	l3.Bandwidth = 80e9
	if s := LevelTable([]Level{l3, mem}).String(); strings.Contains(s, "no faster") {
		t.Errorf("a note for ordered rows:\n%s", s)
	}
}
