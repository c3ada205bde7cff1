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
				dev := devicetest.Open(b, name)
				w := Square(n, dtypes.Float32)
				inst, err := w.Prepare(dev)
				if err != nil {
					b.Fatal(err)
				}
				defer inst.Close()
				if _, err := inst.Compile(); err != nil {
					b.Fatal(err)
				}
				if err := inst.Run(); err != nil { // warm-up
					b.Fatal(err)
				}
				b.ResetTimer()
				for b.Loop() {
					if err := inst.Run(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(w.FLOPs()*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkMLPStep times one Adam training step of a small MLP on xla:cpu.
func BenchmarkMLPStep(b *testing.B) {
	dev := devicetest.Open(b, devices.CPU)
	w := MLP{Batch: 128, In: 256, Hidden: 512, Out: 10, Depth: 2, Type: dtypes.Float32, Optimizer: Adam}
	tr, err := w.NewTrainer(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	if err := warmUp(tr); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := tr.Step(); err != nil {
			b.Fatal(err)
		}
	}
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
	{
		{
			dev := devicetest.Open(b, device)
			inst, err := Square(n, dtypes.Float32).Prepare(dev)
			if err != nil {
				b.Fatal(err)
			}
			defer inst.Close()
			if _, err := inst.Compile(); err != nil {
				b.Fatal(err)
			}
			if err := inst.Run(); err != nil { // warm-up
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := inst.Run(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/call")
		}
	}
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
	{
		{
			dev := devicetest.Open(b, device)
			w := MLP{Batch: batch, In: 64, Hidden: 64, Out: 10, Depth: 2, Type: dtypes.Float32, Seed: 1}
			tr, err := w.NewTrainer(dev)
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			if err := warmUp(tr); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := tr.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/step")
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
