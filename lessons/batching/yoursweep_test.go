package batching

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

func TestYourSweep(t *testing.T) {
	var rs []results.Result
	for b, us := range map[int]int{1: 100, 2: 105, 64: 180, 256: 400, 512: 800} {
		rs = append(rs, fake(devices.CPU, b, Wide, time.Duration(us)*time.Microsecond, false))
	}
	rs = append(rs, fake(devices.CUDA, 1, Wide, time.Microsecond, true)) // a recording is not the learner's
	got := YourSweep(rs, Wide)
	for _, want := range []string{"batch 1 → 2 (2× the work) took 1.05× the time — the extra samples were nearly free", "Batch 512 did 512× the work of batch 1 in 8× the time", "twice its batch-1 time at batch 256"} {
		if !strings.Contains(got, want) {
			t.Errorf("YourSweep lacks %q:\n%s", want, got)
		}
	}
	if got := YourSweep(nil, Wide); !strings.Contains(got, "run the sweep cell first") {
		t.Errorf("YourSweep without a sweep: %q", got)
	}
	if _, err := DoublingBatch(rs[:1]); err == nil {
		t.Error("DoublingBatch of one size: no error")
	}
}

// The crossover's launch-cost control (the model's launches as one CUDA graph and on a stream) is
// printed under the batch sweep's chart, where the GPU lane is the model.
func TestCrossoverShowsLaunchControl(t *testing.T) {
	line := Crossover(cpuSweep(Narrow, Batches(experiments.Laptop)), Narrow)
	if !strings.Contains(line, "CUDA graph") || !strings.Contains(line, "on a stream") {
		t.Errorf("Crossover lacks the launch-cost control:\n%s", line)
	}
}
