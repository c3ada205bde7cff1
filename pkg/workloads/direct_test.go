package workloads_test

import (
	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// directCases are the workloads whose Instance is an execInstance (one executable over fixed inputs).
var directCases = []struct {
	dev string
	w   workloads.Workload
}{
	{devices.CPU, workloads.MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float32}},
	{devices.CPU, workloads.MatMul{M: 33, K: 47, N: 29, Type: dtypes.BFloat16}},
	{devices.Go, workloads.MatMul{M: 9, K: 7, N: 5, Type: dtypes.Float64}},
	{devices.CPU, membound.LayerNorm{Rows: 17, Cols: 96, Type: dtypes.Float32}},
	{devices.CPU, membound.Elementwise{N: 1000, Type: dtypes.Float32}},
	{devices.CPU, membound.Copy{N: 1000, Type: dtypes.Float32}},
	{devices.CPU, workloads.MLPForward{Batch: 3, In: 16, Hidden: 32, Out: 4, Depth: 2, Seed: 5}},
}

// The timed path (a direct call of the executable) gives exactly what graph.Exec gives, for every
// workload that runs on it: Check reads the direct path, so this is what makes its check count for
// the timings.
func TestDirectAgreesWithExec(t *testing.T) {
	n := 0
	for _, tc := range directCases {
		t.Run(tc.dev+"/"+tc.w.String(), func(t *testing.T) {
			inst, err := tc.w.Prepare(devicetest.Open(t, tc.dev))
			if err != nil {
				t.Fatal(err)
			}
			defer inst.Close()
			direct, viaExec, ok, err := workloads.DirectAndExec(inst)
			defer workloads.FreeAll(direct)
			defer workloads.FreeAll(viaExec)
			if !ok {
				t.Fatalf("%T is not one executable over fixed inputs: move it out of directCases", inst)
			}
			n++
			if err != nil {
				t.Fatal(err)
			}
			if len(direct) != len(viaExec) {
				t.Fatalf("%d outputs direct, %d through graph.Exec", len(direct), len(viaExec))
			}
			for i := range direct {
				a, errA := workloads.ToFloat64(direct[i])
				b, errB := workloads.ToFloat64(viaExec[i])
				if errA != nil || errB != nil || !slices.Equal(a, b) || !direct[i].Shape().Equal(viaExec[i].Shape()) {
					t.Errorf("output %d: direct %v %v, graph.Exec %v %v (%v %v)", i, direct[i].Shape(), head(a), viaExec[i].Shape(), head(b), errA, errB)
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no workload runs on the direct path")
	}
}

func head(v []float64) []float64 { return v[:min(len(v), 4)] }
