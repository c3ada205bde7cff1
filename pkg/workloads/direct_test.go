package workloads

import (
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// directCases are the workloads whose Instance is an execInstance (one executable over fixed inputs).
var directCases = []struct {
	dev string
	w   Workload
}{
	{devices.CPU, MatMul{M: 33, K: 47, N: 29, Type: dtypes.Float32}},
	{devices.CPU, MatMul{M: 33, K: 47, N: 29, Type: dtypes.BFloat16}},
	{devices.Go, MatMul{M: 9, K: 7, N: 5, Type: dtypes.Float64}},
	{devices.CPU, LayerNorm{Rows: 17, Cols: 96, Type: dtypes.Float32}},
	{devices.CPU, Elementwise{N: 1000, Type: dtypes.Float32}},
	{devices.CPU, Copy{N: 1000, Type: dtypes.Float32}},
	{devices.CPU, MLPForward{Batch: 3, In: 16, Hidden: 32, Out: 4, Depth: 2, Seed: 5}},
}

// The timed path (a direct call of the executable) gives exactly what graph.Exec gives, for every
// workload that runs on it: Check reads the direct path, so this is what makes its check count for
// the timings.
func TestDirectAgreesWithExec(t *testing.T) {
	n := 0
	for _, tc := range directCases {
		t.Run(tc.dev+"/"+tc.w.String(), func(t *testing.T) {
			inst, err := tc.w.Prepare(openDevice(t, tc.dev))
			if err != nil {
				t.Fatal(err)
			}
			defer inst.Close()
			e, ok := inst.(*execInstance)
			if !ok {
				t.Fatalf("%T is not one executable over fixed inputs: move it out of directCases", inst)
			}
			n++
			direct, err := e.directOutputs()
			if err != nil {
				t.Fatal(err)
			}
			defer freeAll(direct)
			viaExec, err := e.exec.Exec(e.inputs...)
			if err != nil {
				t.Fatal(err)
			}
			defer freeAll(viaExec)
			if len(direct) != len(viaExec) {
				t.Fatalf("%d outputs direct, %d through graph.Exec", len(direct), len(viaExec))
			}
			for i := range direct {
				a, errA := toFloat64(direct[i])
				b, errB := toFloat64(viaExec[i])
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

// A direct call refuses an argument of the wrong shape (go-xla checks only the dtype) and the wrong
// number of arguments, and frees what it was to donate when it refuses.
func TestDirectRefusesWrongArguments(t *testing.T) {
	dev := openDevice(t, devices.CPU)
	inst, err := MatMul{M: 8, K: 8, N: 8, Type: dtypes.Float32}.Prepare(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	e := inst.(*execInstance)
	if err := e.compile(); err != nil {
		t.Fatal(err)
	}
	other, err := castOnDevice(dev, make([]float32, 8*4), dtypes.Float32, 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := takeBuffer(other)
	if err != nil {
		t.Fatal(err)
	}
	d := *e.call // a copy: the instance's own call stays checked
	d.checked = false
	d.donate = []bool{true, false}
	_, err = d.call([]compute.Buffer{b, e.bufs[1]})
	if err == nil || !strings.Contains(err.Error(), "compiled for") {
		t.Errorf("wrong shape: %v", err)
	}
	if _, err := b.Shape(); err == nil {
		t.Errorf("the donated argument of a refused call was not freed")
	}
	if _, err := d.call([]compute.Buffer{e.bufs[0]}); err == nil || !strings.Contains(err.Error(), "takes 2 arguments, got 1") {
		t.Errorf("wrong count: %v", err)
	}
}
