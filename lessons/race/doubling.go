package race

import (
	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// KeepDouble is the name DoubleOnEachDevice keeps its results under; DoublingName the experiment's.
const (
	KeepDouble   = Lesson + "-double"
	DoublingName = "double-the-work"
)

// Doubling is lesson 01's first measurement, the course's one frame (pkg/model/regime): three workloads,
// each timed at its size and at twice the work, so the learner sees all three regimes before any
// theory — a batch-1 training step (overhead-bound), y = a·x + b over many values (memory-bandwidth-
// bound) and a large matmul (compute-bound).
type Doubling struct {
	Batch   int // the race's training step (hidden 64) at this batch, then at twice it
	Values  int // float32 values of y = a·x + b, then twice as many
	MatMulN int // n of the 256×n by n×n float32 matmul, its 256 rows then doubled
}

// Limits of a Doubling, checked (doubled) before anything is allocated.
const (
	MaxDoublingBatch   = 4096
	MaxDoublingValues  = 64 << 20 // doubled: 128 Mi float32, 512 MiB per array
	MaxDoublingMatMulN = 4096     // doubled: 2·512·4096² ≈ 1.7·10¹⁰ FLOPs
)

// DefaultDoubling is the lesson's at scale s: batch 1, 8 Mi values (32 MiB per array, more than most
// laptops' last-level cache) and n = 1024 on a laptop (the notebook's literal); 64 Mi values and n = 4096 on
// a GPU (what `whygpu record` records).
func DefaultDoubling(s experiments.Scale) Doubling {
	return experiments.Pick(s, Doubling{Batch: 1, Values: 8 << 20, MatMulN: 1024}, Doubling{Batch: 1, Values: 64 << 20, MatMulN: 4096})
}

// Validate says why a doubling test is refused, before anything is allocated.
func (d Doubling) Validate() error {
	if err := experiments.CheckDims(Lesson, MaxDoublingBatch, experiments.Dim{Name: "batch", Value: d.Batch}); err != nil {
		return err
	}
	if err := experiments.CheckDims(Lesson, MaxDoublingValues, experiments.Dim{Name: "values", Value: d.Values}); err != nil {
		return err
	}
	return experiments.CheckDims(Lesson, MaxDoublingMatMulN, experiments.Dim{Name: "matmul n", Value: d.MatMulN})
}

// Pairs are d's workloads, each with its doubled version.
func (d Doubling) Pairs() [][2]workloads.Workload {
	step := experiments.CourseMLP(d.Batch, SweepHidden)
	step2 := step
	step2.Batch *= 2
	ax := workloads.Elementwise{N: d.Values, Type: dtypes.Float32, Seed: 1}
	ax2 := ax
	ax2.N *= 2
	mm := workloads.MatMul{M: 256, K: d.MatMulN, N: d.MatMulN, Type: dtypes.Float32}
	mm2 := mm
	mm2.M *= 2
	return [][2]workloads.Workload{{step, step2}, {ax, ax2}, {mm, mm2}}
}

var doublingExperiments = experiments.List{
	{
		Lesson: Lesson, Name: DoublingName,
		Doc: "double the work: a batch-1 training step, y = a·x + b, a 256×n matmul, each at its size and twice it (laptop: 8 Mi values, n 1024; GPU: 64 Mi, n 4096)",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return regime.Double(dev, DefaultDoubling(s).Pairs(), nil)
		},
	},
}

// DoubleOnEachDevice runs the doubling test of the cell's sizes live on every XLA device, adds the
// recordings of devices not here, and keeps them. Sizes Validate refuses are refused before
// anything is allocated.
func DoubleOnEachDevice(d Doubling, progress func(done, total int)) ([]results.Result, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, DoublingName, KeepDouble, func(dev *devices.Device) ([]results.Result, error) {
		return regime.Double(dev, d.Pairs(), progress)
	})
}

// DoubleTable is the test's verdict for every pair measured (regime.Table).
func DoubleTable(rs []results.Result) units.Table { return regime.Table(rs) }
