package roofline

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The intensity formula agrees with the matmul workload's own FLOP and byte counts (float64
// arithmetic on both sides), and RidgeBatch inverts it.
func TestBatchIntensityAndRidgeBatch(t *testing.T) {
	tests := []struct {
		b, d int
		dt   dtypes.DType
	}{{1, 1024, dtypes.Float32}, {64, 1024, dtypes.Float32}, {300, 1024, dtypes.BFloat16}, {2048, 4096, dtypes.BFloat16}}
	for _, tc := range tests {
		w := workloads.MatMul{M: tc.b, K: tc.d, N: tc.d, Type: tc.dt}
		elem := float64(tc.dt.Size())
		if got, want := BatchIntensity(tc.b, tc.d, elem), w.FLOPs()/w.Bytes(); math.Abs(got-want) > 1e-12*want {
			t.Errorf("BatchIntensity(%d, %d, %v) = %v, workload says %v", tc.b, tc.d, elem, got, want)
		}
		ridge := BatchIntensity(tc.b, tc.d, elem)
		if got := RidgeBatch(ridge, tc.d, elem); math.Abs(got-float64(tc.b)) > 1e-9*float64(tc.b) {
			t.Errorf("RidgeBatch(intensity at B=%d) = %v", tc.b, got)
		}
	}
	if !math.IsInf(RidgeBatch(600, 1024, 2), 1) {
		t.Error("a ridge above D/elem must need an infinite batch")
	}
	// The H200's datasheet bf16 ridge (989 TFLOP/s ÷ 4.8 TB/s ≈ 206) puts the ridge batch at
	// D = 1024 near 300 (≈ 345; ≈ 2 × ridge / elem for B ≪ D, less the weight-reuse limit).
	h200 := RidgeBatch(sheet(H200).Ridge("bfloat16"), 1024, 2)
	if h200 < 250 || h200 > 400 {
		t.Errorf("H200 ridge batch at D=1024: %v, want about 300", h200)
	}
}

func TestBatchSweepShort(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	s := BatchSizes{D: 256, Batches: []int{1, 16, 256}, Types: []dtypes.DType{dtypes.Float32}}
	calls := 0
	rs, err := BatchSweep(dev, s, func(done, total int) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 || calls != 3 {
		t.Fatalf("%d results, %d progress calls", len(rs), calls)
	}
	for _, r := range rs {
		if !r.Correct() || r.CeilingFLOPS <= 0 {
			t.Errorf("%s: rel err %g, ceiling %g", r.Label, r.RelErr, r.CeilingFLOPS)
		}
	}
	if _, err := BatchChart(rs); err != nil {
		t.Error(err)
	}
	if _, err := BatchRoofline(rs); err != nil {
		t.Error(err)
	}
	rows := RidgeBatchRows(rs)
	if len(rows) != 3 || rows[0].Bend == 0 || rows[2].RidgeFrom != "datasheet" {
		t.Errorf("ridge-batch rows %+v", rows)
	}
	if BatchGain(rs) == "" {
		t.Error("no gain line")
	}
}

func TestBatchSweepForScales(t *testing.T) {
	l, g := BatchSweepFor(experiments.Laptop), BatchSweepFor(experiments.GPU)
	if l.D != 1024 || l.Batches[0] != 1 || l.Batches[len(l.Batches)-1] != 2048 || len(g.Types) != 2 {
		t.Errorf("laptop %+v, gpu %+v", l, g)
	}
}

func TestWeightsInCache(t *testing.T) {
	r := results.Result{DType: "float32", Params: map[string]int{"m": 1, "k": 1024, "n": 1024}, Provenance: results.Provenance{Device: devices.CPU}}
	for _, tc := range []struct {
		bytes int64
		want  string
	}{{32 << 20, "holds"}, {1 << 20, "every run reads them from DRAM"}} {
		got := weightsInCache([]results.Result{r}, devices.Cache{Level: 3, Type: "Unified", Bytes: tc.bytes})
		if !strings.Contains(got, tc.want) || !strings.Contains(got, "4 MiB") {
			t.Errorf("weightsInCache(%d bytes) = %q, want %q and 4 MiB", tc.bytes, got, tc.want)
		}
	}
	if got := weightsInCache(nil, devices.Cache{}); !strings.Contains(got, "run the sweep cell first") {
		t.Errorf("without a sweep: %q", got)
	}
}
