package train

import (
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
)

func TestLoopReadVariants(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	tr, err := workloads.MLP{Batch: 8, In: 8, Hidden: 16, Out: 2, Depth: 1, Type: dtypes.Float32}.NewTrainer(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, tc := range []struct {
		readEvery, reads int
	}{{1, 6}, {4, 2}, {0, 1}} {
		r, err := Loop(tr, LoopOptions{Steps: 6, ReadEvery: tc.readEvery})
		if err != nil {
			t.Fatal(err)
		}
		if r.Reads != tc.reads || len(r.Losses) != tc.reads {
			t.Errorf("ReadEvery %d: %d reads (%d losses), want %d", tc.readEvery, r.Reads, len(r.Losses), tc.reads)
		}
		if r.DeviceBusy <= 0 || r.DeviceBusy > r.Wall || r.ReadTime > r.Wall {
			t.Errorf("ReadEvery %d: inconsistent times %+v", tc.readEvery, r)
		}
		t.Log(r)
	}
	if _, err := Loop(tr, LoopOptions{Steps: 2, ReadEvery: -1}); err == nil {
		t.Error("ReadEvery −1 should be an error")
	}
}

func TestFromPipeline(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	tr, err := workloads.MLP{Batch: 8, In: 8, Hidden: 16, Out: 2, Depth: 1, Type: dtypes.Float32}.NewTrainer(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	// A slow loader (5 ms of CPU per batch) in front of a tiny model: the device waits. (How much
	// depends on what else the cores run, so only the bookkeeping is asserted.)
	r, err := FromPipeline(tr, data.Pipeline{Workers: 1, Prefetch: 1, CostPerBatch: 5 * time.Millisecond}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Spans) != 3*5 {
		t.Fatalf("%d spans, want 15", len(r.Spans))
	}
	if sum := r.Waiting + r.Upload + r.Compute; sum > r.Wall || r.Waiting <= 0 || r.Compute <= 0 {
		t.Errorf("waiting %v + upload %v + compute %v vs wall %v", r.Waiting, r.Upload, r.Compute, r.Wall)
	}
	// The first batch cannot be ready before 5 ms of decoding: the loop starts starved.
	if first := r.Spans[0]; first.Kind != SpanWait || first.End-first.Start < 2*time.Millisecond {
		t.Errorf("first span %+v: want a wait of about 5 ms", first)
	}
	if u := r.Utilization(); u <= 0 || u >= 1 {
		t.Errorf("Utilization = %g, want in (0, 1)", u)
	}
	for i, s := range r.Spans {
		if s.End < s.Start || (i > 0 && s.Start < r.Spans[i-1].End) {
			t.Errorf("span %d %+v out of order", i, s)
		}
	}
	t.Log(r)
}
