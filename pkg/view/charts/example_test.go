package charts_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// Where does the GPU start to win? Two curves of time per step against batch size cross where
// their straight log–log segments meet. (The numbers here are made up for the example.)
func ExampleCrossover() {
	cpu := []charts.XY{{X: 1, Y: 0.1e-3}, {X: 8, Y: 0.8e-3}, {X: 64, Y: 6.4e-3}}
	gpu := []charts.XY{{X: 1, Y: 1e-3}, {X: 8, Y: 1e-3}, {X: 64, Y: 1e-3}}
	at, ok := charts.Crossover(cpu, gpu)
	fmt.Printf("cross: %v at batch %.0f, %s per step\n", ok, at.X, units.Duration(at.Y))
	// Output: cross: true at batch 10, 1 ms per step
}

// A chart of time per step: one series measured here, one recorded on a GPU elsewhere, each
// labeled in the legend; the crossover batch is marked. display.Chart shows it in a notebook.
func ExampleTimeVsBatch() {
	series := []charts.Series{
		{Name: "xla:cpu", Source: charts.Live,
			Points: []charts.XY{{X: 1, Y: 0.1e-3}, {X: 8, Y: 0.8e-3}, {X: 64, Y: 6.4e-3}}},
		{Name: "xla:cuda", Source: charts.Recorded, Note: "NVIDIA H200, 2026-11-30",
			Points: []charts.XY{{X: 1, Y: 1e-3}, {X: 8, Y: 1e-3}, {X: 64, Y: 1e-3}}},
	}
	p, err := charts.TimeVsBatch("time per training step", series)
	if err != nil {
		panic(err)
	}
	svg, err := charts.SVG(p, 0, 0)
	if err != nil {
		panic(err)
	}
	for _, s := range series {
		fmt.Println(s.Legend())
	}
	fmt.Println(strings.Contains(string(svg), "crossover ≈ 10"))
	// Output:
	// xla:cpu — measured live
	// xla:cuda — recorded on NVIDIA H200, 2026-11-30
	// true
}

// A roof from datasheet figures: where a workload stops being memory-bound.
func ExampleRoof_Ridge() {
	h200 := charts.Roof{Name: "H200 bf16", PeakFLOPS: 989e12, Bandwidth: 4.8e12, Source: charts.Model, Note: "H200 datasheet"}
	fmt.Printf("ridge at %.0f FLOP/byte; at 10 FLOP/byte it attains %s\n",
		h200.Ridge(), units.SI(h200.Attainable(10), "FLOP/s"))
	// Output: ridge at 206 FLOP/byte; at 10 FLOP/byte it attains 48 TFLOP/s
}

// The race's verdict in words, with where each time comes from.
func ExampleRaceSummary() {
	lanes := []charts.Lane{
		{Device: "xla:cpu", Time: 12 * time.Millisecond, Source: charts.Live},
		{Device: "xla:cuda", Time: 800 * time.Microsecond, Source: charts.Recorded, Note: "NVIDIA H200, 2026-11-30"},
	}
	fmt.Println(charts.RaceSummary(lanes))
	// Output: xla:cuda (recorded on NVIDIA H200, 2026-11-30) wins: 800 µs vs 12 ms for xla:cpu (measured live), 15× faster
}

// Memory per kind, stacked per batch size, against a device's capacity.
func ExampleMemoryBars() {
	m := charts.MemoryChart{
		Title: "MLP training memory",
		Bars: []charts.Memory{
			{Label: "batch 32", Weights: 4 << 20, Gradients: 4 << 20, Optimizer: 8 << 20, Activations: 1 << 20},
			{Label: "batch 512", Weights: 4 << 20, Gradients: 4 << 20, Optimizer: 8 << 20, Activations: 16 << 20},
		},
		Limits:  []charts.Limit{{Label: "example capacity", Bytes: 40 << 20}},
		Origins: []units.Origin{units.Formula("bytes from the shapes")},
	}
	p, err := charts.MemoryBars(m)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Y.Label.Text, units.Bytes(m.Bars[1].Total()))
	// Output: memory [MiB] 32 MiB
}
