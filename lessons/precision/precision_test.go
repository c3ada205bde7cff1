package precision

import (
	"math"
	"slices"
	"testing"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

func TestRoundF16(t *testing.T) {
	for _, c := range []struct{ in, want float64 }{
		{1, 1},
		{65504, 65504},
		{65519, 65504},
		{65520, math.Inf(1)},
		{-1e6, math.Inf(-1)},
		{6e-8, F16SmallestSubnormal},         // rounds to the smallest subnormal
		{4e-8, F16SmallestSubnormal},         // above half of it: rounds up
		{2.9e-8, 0},                          // below half: 0
		{math.Ldexp(1, -25), 0},              // exactly half: ties to even (0)
		{-1e-5, -168 * F16SmallestSubnormal}, // a subnormal, 1e-5/2^-24 = 167.77 → 168
		{1 + math.Ldexp(1, -11), 1},          // tie to even at 1
		{1 + 3*math.Ldexp(1, -11), 1 + math.Ldexp(1, -9)},
	} {
		if got := workloads.RoundF16(float32(c.in)); got != c.want && !(math.IsInf(c.want, 0) && got == c.want) {
			t.Errorf("RoundF16(%g) = %g, want %g", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want float64 }{
		{1, 1}, {1e-30, 1e-30}, {1 + math.Ldexp(1, -9), 1}, {3e-8, 3e-8},
	} {
		if got := workloads.RoundBF16(float32(c.in)); math.Abs(got-c.want) > math.Abs(c.want)*math.Ldexp(1, -8) {
			t.Errorf("RoundBF16(%g) = %g, want ≈ %g", c.in, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	ref := []float32{1e-3, 1e-6, 1e-9, 0}
	c := Count("x", 1, ref, ref)
	if c.Nonzero32 != 3 || c.Zero16 != 1 || c.Subnormal != 1 || c.Inf16 != 0 || c.ZeroBF16 != 0 {
		t.Errorf("unscaled: %+v", c)
	}
	for _, c2 := range []struct {
		scale     float64
		zero, inf int
	}{{1 << 16, 0, 0}, {1 << 27, 0, 1}} {
		scaled := make([]float32, len(ref))
		for i, v := range ref {
			scaled[i] = v * float32(c2.scale)
		}
		c = Count("x", c2.scale, scaled, ref)
		if c.Zero16 != c2.zero || c.Inf16 != c2.inf || (c2.inf > 0) != (c.RelErr16 == -1) {
			t.Errorf("scaled by %g: %+v", c2.scale, c)
		}
	}
}

// TestStudyOnGoBackend trains the gradient model a few steps on the pure-Go backend.
func TestStudyOnGoBackend(t *testing.T) {
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	m := workloads.GradModel{Batch: 16, In: 4, Hidden: 8, Out: 2, Depth: 1, Seed: 3}
	us, err := UnderflowStudy(dev, m, []int{0, 20}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 2 || us[1].Steps != 20 || !(us[1].Loss < us[0].Loss) {
		t.Fatalf("study: %+v", us)
	}
	c := us[0].Rows[0]
	if c.N != 4*8+8+8*2+2 || c.Scale != 1 {
		t.Errorf("census of parameters: %+v", c)
	}
	if c := us[0].Rows[1]; c.N != 16*(8+2) {
		t.Errorf("census of layer outputs: %+v", c)
	}
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	if err := KeepStudy(us); err != nil {
		t.Fatal(err)
	}
	back, err := RecallStudy()
	if err != nil || len(back) != 2 {
		t.Fatalf("recall: %v", err)
	}
	if _, err := GradientChart(back); err != nil {
		t.Error(err)
	}
	if _, rows := UnscaledTable(back).Parts(); len(rows) != 4 {
		t.Errorf("unscaled rows %d", len(rows))
	}
	if _, rows := ScalingTable(back).Parts(); len(rows) != 4*len(Scales) {
		t.Errorf("scaling rows %d", len(rows))
	}
}

func TestMixedAndDTypesOnGoBackend(t *testing.T) {
	dev, err := devices.Open(devices.Go)
	if err != nil {
		t.Fatal(err)
	}
	m := MixedModel(experiments.Laptop)
	m.Batch, m.In, m.Hidden, m.Out, m.Depth = 4, 8, 16, 2, 1
	rs, err := Mixed(dev, m, 3)
	if err != nil || len(rs) != 3 {
		t.Fatalf("mixed: %v, %d results", err, len(rs))
	}
	if rs[1].Metrics[MetricParamBytes] != rs[0].Metrics[MetricParamBytes] || rs[1].Metrics[MetricActivationBytes]*2 != rs[0].Metrics[MetricActivationBytes] {
		t.Errorf("memory: f32 %v, bf16 %v", rs[0].Metrics, rs[1].Metrics)
	}
	if _, rows := MixedTable(rs).Parts(); len(rows) != 3 {
		t.Errorf("mixed table %v", rows)
	}
	rs, err = MatMulDTypes(dev, 16)
	if err != nil || len(rs) != len(DTypes) {
		t.Fatalf("dtypes: %v %d", err, len(rs))
	}
	if _, err := DTypeChart(rs); err != nil {
		t.Error(err)
	}
	if _, rows := DTypeTable(rs).Parts(); rows[1][6] != "1.00×" {
		t.Errorf("dtype table %v", rows)
	}
	if _, rows := GPUPeakTable().Parts(); len(rows) != 6 || rows[2][2] != "7.4×" || rows[5][1] != "1.98 PFLOP/s" {
		t.Errorf("GPU peaks (want TF32 ≈ 7.4× plain FP32, FP8 1,979 TFLOP/s dense) %v", rows)
	}
	if CPUFlags() == "" {
		t.Error("no CPU flags")
	}
}

// TestMixedTableReadsOldRecordings checks that a result saved before Metrics existed (loss in
// millionths and bytes among the Params) shows the same row as one saved now.
func TestMixedTableReadsOldRecordings(t *testing.T) {
	now := results.Result{DType: "float32", Params: map[string]int{"steps": 60}, Metrics: map[string]float64{
		MetricLoss: 1.25, MetricFirstLoss: 2.5, MetricParamBytes: 4096, MetricActivationBytes: 1024, MetricTotalBytes: 8192}}
	old := results.Result{DType: "float32", Params: map[string]int{"steps": 60, "loss_e6": 1250000, "first_loss_e6": 2500000,
		"param_bytes": 4096, "activation_bytes": 1024, "total_bytes": 8192}}
	for _, tc := range []struct {
		name string
		r    results.Result
	}{{"now", now}, {"old", old}} {
		h, rows := MixedTable([]results.Result{tc.r}).Parts()
		_, want := MixedTable([]results.Result{now}).Parts()
		if !slices.Equal(rows[0], want[0]) || h[3] != "loss: first → after 60 steps" {
			t.Errorf("%s: %q %q, want %q", tc.name, h, rows[0], want[0])
		}
	}
}

// TestSumOrders: the in-order sum repeats bit for bit, every order stays close to the float64 sum,
// and at least one other order changes the bits (float32 addition is not associative).
func TestSumOrders(t *testing.T) {
	s, err := SumOrders(1 << 16)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Again {
		t.Error("the in-order sum changed on a rerun")
	}
	differ := false
	for i, v := range s.Sum {
		if rel := math.Abs(float64(v)-s.Exact) / math.Abs(s.Exact); rel > 1e-3 {
			t.Errorf("%s: relative error %g", s.Order[i], rel)
		}
		differ = differ || math.Float32bits(v) != math.Float32bits(s.Sum[0])
	}
	if !differ {
		t.Error("no order changed the bits: the demonstration shows nothing")
	}
	if _, rows := SumTable(s).Parts(); len(rows) != 4 {
		t.Errorf("table %v", rows)
	}
	if _, err := SumOrders(2); err == nil {
		t.Error("2 values accepted")
	}
}
