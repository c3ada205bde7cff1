package memory

import (
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// XLA's arguments are exactly the resident state and the batch plus two scalars (the learning rate
// and Adam's step counter); its outputs are the new state plus the loss and the output tuple's
// pointer table (8 bytes per output). Both are checked from shapes.
func TestCompiledMemoryMatchesShapes(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	w := workloads.MLP{Batch: 32, In: 64, Hidden: 64, Depth: 2, Out: 8, Type: dtypes.Float32, Optimizer: workloads.Adam}
	r, err := CompiledMemory(dev, w, 0)
	if err != nil {
		t.Fatal(err)
	}
	g := GapsOf(r)
	if g.ArgsMinusState != 8 {
		t.Errorf("arguments − (state + batch) = %d B, want 8 (lr + step)", g.ArgsMinusState)
	}
	nOut := int64(3*2*(w.Depth+1) + 2) // params, m, v, step, loss
	if want := 4 + 4 + 8*nOut; g.OutputsMinusState != want {
		t.Errorf("outputs − state = %d B, want step + loss + 8 B × %d = %d", g.OutputsMinusState, nOut, want)
	}
	if h, rows := CompiledTable([]results.Result{r}).Parts(); len(h) != len(rows[0]) {
		t.Errorf("table header %d columns, rows %d", len(h), len(rows[0]))
	}
	if h, rows := GapTable([]results.Result{r}).Parts(); len(h) != len(rows[0]) {
		t.Errorf("gap header %d columns, rows %d", len(h), len(rows[0]))
	}
}
