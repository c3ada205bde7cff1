package display_test

import (
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/teach/recall"
	"github.com/gpu-course/whygpu/pkg/view/display"
)

// A recall check at the end of a section.
func ExampleRecall() {
	deck := &recall.Deck{Lesson: "01-race", Title: "Latency vs throughput", Sections: []recall.Section{
		{ID: "flops", Title: "Counting FLOPs", Cards: []recall.Card{
			{Question: "How many FLOPs does a dense layer's forward pass take?", Answer: "2·B·D·H: a multiply and an add per weight per sample."},
		}},
	}}
	_ = display.Recall(deck, "flops")
	// Output:
	// Recall check — Counting FLOPs (1 of the 1 cards of this lesson)
	// Say the answer aloud before you reveal it.
	//   Q1. How many FLOPs does a dense layer's forward pass take?
	//       Answer: 2·B·D·H: a multiply and an add per weight per sample.
}

// Results next to each other, each row saying where it comes from, with the provenance below.
func ExampleResultsTable() {
	date := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	r := results.Result{Label: "matmul 1024", FLOPs: 2 << 30, Bytes: 12 << 20,
		Provenance: results.Provenance{Device: "xla:cuda", Model: "NVIDIA H200", GoMLX: "v0.28.1", Date: date, Recorded: true}}
	r.Stats.Median, r.Stats.Min, r.Stats.P90 = time.Millisecond, time.Millisecond, time.Millisecond
	display.ResultsTable("recorded matmul", []results.Result{r})
	// Output:
	// recorded matmul
	// origin: [recorded on NVIDIA H200, 2026-11-30]
	// source | device | workload | median | min / p90 | CV | GFLOP/s | GB/s | % of peak
	// recorded 2026-11-30 [1] | xla:cuda | matmul 1024 | 1ms | 1ms / 1ms | 0.0% | 2147.5 | 12.58 | –
	// [1] recorded on 2026-11-30 · xla:cuda · NVIDIA H200 · GoMLX v0.28.1
}

// Progress of a sweep: in a notebook one line updated in place, here a line per step.
func ExampleProgress_Step() {
	p := display.NewProgress("sweeping batch sizes")
	for i, b := range []int{1, 8, 64} {
		p.Step(i+1, 3, "batch %d", b)
	}
	p.Done("swept 3 batch sizes")
	// Output:
	// sweeping batch sizes
	// [███░░░░░░░] 1/3 batch 1
	// [██████░░░░] 2/3 batch 8
	// [██████████] 3/3 batch 64
	// swept 3 batch sizes
}
