package workloads

import (
	"fmt"
	"github.com/gpu-course/whygpu/internal/devicetest"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// BenchmarkMatMul times float32 matmuls on xla:cpu and the Go backend and reports GFLOP/s:
//
//	go test ./pkg/workloads -run '^$' -bench MatMul -benchtime 2s
//
// For the side-by-side table with numpy use `go run ./cmd/whygpu bench`.
func BenchmarkMatMul(b *testing.B) {
	for _, name := range []string{devices.CPU, devices.CPUAsync, devices.Go} {
		for _, n := range []int{256, 512, 1024} {
			if name == devices.Go && n > 512 {
				continue // seconds per run: see cmd/whygpu bench
			}
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
				w := Square(n, dtypes.Float32)
				timeRuns(b, warmInstance(b, name, w).Run)
				b.ReportMetric(w.FLOPs()*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkMLPStep times one Adam training step of a small MLP on xla:cpu.
func BenchmarkMLPStep(b *testing.B) {
	dev := devicetest.Open(b, devices.CPU)
	w := MLP{Batch: 128, In: 256, Hidden: 512, Out: 10, Depth: 2, Type: dtypes.Float32, Optimizer: Adam}
	timeRuns(b, warmTrainer(b, dev, w).Step)
	b.ReportMetric(w.FLOPs()*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkCallOverhead times one small call on xla:cpu, waiting for each before the next: the
// runtime's fixed cost per call (an 8×8 matmul is 1 kFLOP, nothing next to the call path). Compare
// with JAX on the same machine through `go run ./cmd/whygpu bench` (which runs both interleaved):
//
//	go test ./pkg/workloads -run '^$' -bench CallOverhead -benchtime 2s
//
// Each runs on devices.CPU (the XLA CPU client executing on the calling thread) and devices.CPUAsync
// (the plugin's default: handed to its thread pool), interleaved.
func BenchmarkCallOverhead(b *testing.B) {
	for _, n := range []int{8, 64} {
		for _, d := range []string{devices.CPU, devices.CPUAsync} {
			b.Run(fmt.Sprintf("matmul/n=%d/%s", n, d), func(b *testing.B) { benchCall(b, d, n) })
		}
	}
}

func benchCall(b *testing.B, device string, n int) {
	inst := warmInstance(b, device, Square(n, dtypes.Float32))
	b.ReportAllocs()
	timeRuns(b, inst.Run)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/call")
}

// BenchmarkStepOverhead times the bench's MLP training step (64→64→64→10, tanh, MSE, SGD, parameters
// donated and updated in place) on xla:cpu at small batches, waiting for each step: per-step cost,
// with the Go allocations per step (41 since the trainer calls the compiled executable with device
// buffers; 87 through graph.Exec):
//
//	go test ./pkg/workloads -run '^$' -bench StepOverhead -benchtime 2s
//
// Each runs on devices.CPU (the plugin as one device: a pool thread per core, like JAX's client),
// devices.CPUSplit (four devices, the plugin's default: four pool threads) and devices.CPUAsync.
func BenchmarkStepOverhead(b *testing.B) {
	for _, batch := range []int{1, 32, 256} {
		for _, d := range []string{devices.CPU, devices.CPUSplit, devices.CPUAsync} {
			b.Run(fmt.Sprintf("mlp/batch=%d/%s", batch, d), func(b *testing.B) { benchStep(b, d, batch) })
		}
	}
}

func benchStep(b *testing.B, device string, batch int) {
	w := MLP{Batch: batch, In: 64, Hidden: 64, Out: 10, Depth: 2, Type: dtypes.Float32, Seed: 1}
	tr := warmTrainer(b, devicetest.Open(b, device), w)
	b.ReportAllocs()
	timeRuns(b, tr.Step)
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/step")
}

// warmInstance prepares w on the device, compiles it and runs it once (closed when b ends).
func warmInstance(b *testing.B, device string, w Workload) Instance {
	inst := Compiled(b, devicetest.Open(b, device), w)
	if err := inst.Run(); err != nil { // warm-up
		b.Fatal(err)
	}
	return inst
}

// warmTrainer builds w's trainer on dev and warms it up (closed when b ends).
func warmTrainer(b *testing.B, dev *devices.Device, w MLP) *Trainer {
	tr, err := w.NewTrainer(dev)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tr.Close() })
	if err := warmUp(tr); err != nil {
		b.Fatal(err)
	}
	return tr
}

// timeRuns restarts b's timer and calls run once per iteration of b's loop.
func timeRuns(b *testing.B, run func() error) {
	b.ResetTimer()
	for b.Loop() {
		if err := run(); err != nil {
			b.Fatal(err)
		}
	}
}

// warmUp compiles tr's step and runs it once, as the training loops of pkg/workloads/train do before timing.
func warmUp(tr *Trainer) error {
	if _, err := tr.Compile(); err != nil {
		return err
	}
	return tr.Step()
}
