package roofline

import (
	"math"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

// The source's numbers, recomputed from the workloads' formulas and the datasheet table.
func TestSourceNumbers(t *testing.T) {
	in := Intensities()
	for _, c := range []struct {
		i    int
		want float64
	}{
		{0, 4096.0 / 3}, // 4096² bf16 matmul ≈ 1,365
		{1, 4096.0 / 6}, // f32: half
		{4, 7.0 / 8},    // layernorm f32: 7 FLOPs per 8 bytes (ignoring γ, β)
		{5, 0.25},       // y = a·x + b, f32
	} {
		if !near(in[c.i].PerByte(), c.want, 1e-3) {
			t.Errorf("%s: %.4g FLOP/byte, want %.4g", in[c.i].Op, in[c.i].PerByte(), c.want)
		}
	}
	gaps := Gaps()
	for i, want := range []float64{96.6, 6.5, 7.3} {
		if !near(gaps[i].Ratio, want, 0.01) {
			t.Errorf("gap %q = %.2f, want ≈ %.1f", gaps[i].What, gaps[i].Ratio, want)
		}
	}
	if r := sheet(H100).Ridge("bfloat16"); !near(r, 295, 0.01) {
		t.Errorf("H100 bf16 ridge %.1f, want ≈ 295", r)
	}
	if r := sheet(CPU).Ridge("float32"); !near(r, 22.2, 0.01) {
		t.Errorf("CPU ridge %.1f, want ≈ 22", r)
	}
	if p := sheet(CPU).Peak("float32"); !near(p, 10.24e12, 1e-6) {
		t.Errorf("CPU peak %.3g", p)
	}
	if h, rows := GapTable().Parts(); len(rows) != 3 || len(h) != 4 {
		t.Errorf("GapTable: %v %v", h, rows)
	}
}

func TestSizes(t *testing.T) {
	for _, s := range []experiments.Scale{experiments.Laptop, experiments.GPU} {
		ws := SizesFor(s).Workloads()
		if len(ws) < 4 {
			t.Errorf("%s: %d workloads", s, len(ws))
		}
		for _, w := range ws {
			if workloads.FLOPsOf(w) <= 0 || workloads.BytesOf(w) <= 0 {
				t.Errorf("%s: %s has no FLOPs or bytes", s, w)
			}
		}
	}
}

// TestPointsOnGoBackend measures tiny points on the pure-Go backend (no plugin needed) and charts them.
func TestPointsOnGoBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("measures ceilings")
	}
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Points(dev, Sizes{MatMul: []int{16, 64}, MatMulTypes: SizesFor(experiments.Laptop).MatMulTypes, LNRows: 64, LNCol: 64, Elementwise: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 {
		t.Fatalf("%d results", len(rs))
	}
	roofs := Roofs(rs)
	if len(roofs) != 4 || len(roofs[0].Points) != 4 || roofs[0].Source != charts.Live {
		t.Errorf("roofs: %+v", roofs)
	}
	if _, err := Chart(rs); err != nil {
		t.Error(err)
	}
	// The verdict follows the measured ridge, which a loaded machine moves (ceilings measured while
	// others ran): check it is consistent with the ridge, not a fixed answer.
	for _, v := range Verdicts(rs) {
		if want := map[bool]string{true: "left (memory)", false: "right (compute)"}[v.Intensity < v.Ridge]; v.Side != want {
			t.Errorf("%s: intensity %.3g vs ridge %.3g is %s, want %s", v.Label, v.Intensity, v.Ridge, v.Side, want)
		}
		if v.Regime == "" || v.Regime == regime.Unknown || v.Explained <= 0 {
			t.Errorf("%s: no regime by time budget: %q, explained %v", v.Label, v.Regime, v.Explained)
		}
	}
	if v := Verdicts(rs); len(v) != 4 {
		t.Errorf("verdicts: %+v", v)
	}
	if tb, err := RidgeTable([]*devices.Device{dev}); err != nil || len(tb.Rows) < 4 || len(tb.Header) != 6 {
		t.Errorf("RidgeTable: %v %v", tb.Rows, err)
	}
	if SourceBenchmark(rs) == "" {
		t.Error("empty benchmark")
	}
	// A recorded GPU result replaces the H100 datasheet roofs.
	gpu := rs[0]
	gpu.Provenance.Device, gpu.Provenance.Recorded, gpu.Provenance.Model = devices.CUDA, true, "NVIDIA H200 (139 GiB)"
	roofs = Roofs(append([]results.Result{gpu}, rs...))
	for _, r := range roofs {
		if r.Name == H100+" f32" {
			t.Errorf("datasheet roof %q shown next to a recorded GPU", r.Name)
		}
	}
}

// The lesson's machines are in the datasheet table (an unknown name's error: datasheet.TestLookup).
func TestSheet(t *testing.T) {
	for _, m := range []string{H100, H200, CPU} {
		if c := sheet(m); c.Peak("float32") <= 0 || c.BandwidthBytes <= 0 {
			t.Errorf("sheet(%q) = %+v: not in the datasheet table", m, c)
		}
	}
}
