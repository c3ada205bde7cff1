package race

import (
	"errors"
	"fmt"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/charts"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/measure"
)

// StepSweepKeep is the name StepSweep keeps its results under.
const StepSweepKeep = Lesson + "-step-sweep"

// StepSweep is the race as a static sweep: the training step at every batch of Batches, hidden
// SweepHidden, timed live on every XLA device here, plus the steps recorded on devices not here
// (a GPU) at the same sizes. The results are kept for the chart cell.
func StepSweep(progress experiments.Progress) ([]measure.Result, error) {
	sizes := experiments.Grid(Batches, []int{SweepHidden})
	out, err := experiments.SweepEveryDevice(sizes, progress)
	if errors.Is(err, measure.ErrInterrupted) {
		_ = measure.Keep(StepSweepKeep, out) // interrupted: the chart cell shows the partial sweep
		return out, err
	}
	if err == nil {
		out, err = experiments.WithRecordedWhere(out, Lesson, StepSweepName, experiments.HiddenIs(SweepHidden))
	}
	return out, measure.KeepOr(StepSweepKeep, out, err) // a failure is kept too: the chart cell refuses
}

// SweepChart draws the step sweep: time per step against batch size, log–log, a line per device
// (measured live solid, recorded dashed, model dotted), crossovers marked.
func SweepChart(rs []measure.Result) (*plot.Plot, error) {
	return charts.TimeVsBatch(fmt.Sprintf("One training step (64→%d→%d→10, f32, SGD) vs batch size", SweepHidden, SweepHidden),
		experiments.TimeSeries(rs, experiments.Batch))
}

// Crossover is the printed crossover line of the step sweep (experiments.CrossoverLine), the same
// with the model's launch cost at its low and its high end (experiments.LaunchEndCrossovers: how
// far the crossover moves on that assumption), then the GPU model's error against each GPU step
// recorded at these sizes (experiments.ModelVersus).
func Crossover(rs []measure.Result) string {
	line := experiments.CrossoverLine(experiments.TimeSeries(rs, experiments.Batch), "batch")
	for _, l := range experiments.LaunchEndCrossovers(rs, "batch", experiments.Batch) {
		line += "\n" + l
	}
	return experiments.WithModelVersus(line, rs)
}
