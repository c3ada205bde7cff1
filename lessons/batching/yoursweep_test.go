package batching

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/regime"
)

// TestYourSweep: the smallest batch's regime comes from its time budget (never from one doubling),
// and the part of the step that does not grow with the batch is what the batch amortizes.
func TestYourSweep(t *testing.T) {
	sweep := func(bandwidth float64) []results.Result {
		var rs []results.Result
		for b, us := range map[int]int{1: 100, 2: 105, 64: 180, 256: 400, 512: 800} {
			r := fake(devices.CPU, b, Wide, time.Duration(us)*time.Microsecond, false)
			r.CeilingFLOPS, r.CeilingBytesPerSec = 500e9, bandwidth
			rs = append(rs, r)
		}
		return append(rs, fake(devices.CUDA, 1, Wide, time.Microsecond, true)) // a recording is not the learner's
	}
	// A step whose T_memory is tiny even at DRAM rate (1% here): overhead-bound, mostly the call.
	got := YourSweep(sweep(2e12), Wide)
	for _, want := range []string{"batch 1: overhead-bound: neither budget explains the 100 µs", "Batch 512 did 512× the work of batch 1 in 8× the time",
		"puts 99% of batch 1's 100 µs in a part that does not grow with the batch", "mostly the call's fixed cost", "twice its batch-1 time at batch 256"} {
		if !strings.Contains(got, want) {
			t.Errorf("YourSweep lacks %q:\n%s", want, got)
		}
	}
	// T_memory 12% of the time and the bytes in the cache: the DRAM roof is the wrong one (review N2:
	// the wide layer's batch-1 time scales with its weights, not with the call).
	if got := YourSweep(sweep(200e9), Wide); regime.FitsInCache(sweep(200e9)[0].Bytes) &&
		(!strings.Contains(got, "batch 1: no verdict — its") || !strings.Contains(got, "the weights' bytes, read and updated once per step") || strings.Contains(got, "mostly the call's fixed cost")) {
		t.Errorf("YourSweep, weights in cache:\n%s", got)
	}
	// A slow memory: memory-bandwidth-bound by the DRAM budget — unless the step's bytes fit in this
	// machine's last-level cache, where that budget is only an upper bound and names no regime.
	slow := sweep(40e9)
	if regime.FitsInCache(slow[0].Bytes) {
		if got := YourSweep(slow, Wide); !strings.Contains(got, "batch 1: no verdict — its") || !strings.Contains(got, "last-level cache") {
			t.Errorf("YourSweep, a slow memory, bytes in cache:\n%s", got)
		}
	} else if got := YourSweep(slow, Wide); !strings.Contains(got, "batch 1: memory-bandwidth-bound") || !strings.Contains(got, "the weights' bytes, read once per step") {
		t.Errorf("YourSweep, a slow memory:\n%s", got)
	}
	// A bandwidth ceiling measured far too low puts T_memory above the measured time: no verdict.
	if got := YourSweep(sweep(1e9), Wide); !strings.Contains(got, "batch 1: "+regime.CeilingTooLow) || !strings.Contains(got, "re-measure the ceilings") || !strings.Contains(got, "any bytes read once per step") {
		t.Errorf("YourSweep, a ceiling too low:\n%s", got)
	}
	if got := YourSweep(nil, Wide); !strings.Contains(got, "run the sweep cell first") {
		t.Errorf("YourSweep without a sweep: %q", got)
	}
	if _, err := DoublingBatch(sweep(1e9)[:1]); err == nil {
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

// TestFillBatch: the SM-fill threshold is computed from the model's tiles (one 128-row tile per 128
// samples at these widths, 132 SMs), not the next power of two.
func TestFillBatch(t *testing.T) {
	for hidden, want := range map[int]int{Narrow: 131*128 + 1, Wide: 32*128 + 1} {
		if got := FillBatch(hidden); got != want {
			t.Errorf("FillBatch(%d) = %d, want %d", hidden, got, want)
		}
	}
}
