package batching

import (
	"fmt"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
)

// stepName is the step's shape for titles: "64→512→512→10".
func stepName(hidden int) string {
	return fmt.Sprintf("%d→%d→%d→%d", experiments.StepIn, hidden, hidden, experiments.StepOut)
}

// BatchChart draws time per step against batch size for one hidden width, log–log, a line per
// device, the crossover marked.
func BatchChart(rs []results.Result, hidden int) (*plot.Plot, error) {
	return charts.TimeVsBatch(fmt.Sprintf("Training step %s (f32, SGD): time per step vs batch", stepName(hidden)),
		stepcharts.TimeSeries(rs, experiments.Batch))
}

// Crossover is the printed crossover line of a batch sweep: "crossover: batch ≈ N (…)" or
// "crossover: none between batch 1 and 512 (…)"; where the GPU lane is the model, the same crossover
// with the model's launches as one CUDA graph and one by one on a stream (stepcharts.LaunchEndCrossovers:
// how far it moves on that assumption); then, for each GPU step in rs (a recording), the model's error
// against it (stepcharts.ModelVersus).
func Crossover(rs []results.Result, hidden int) string {
	line := stepcharts.CrossoverLine(stepcharts.TimeSeries(rs, experiments.Batch), "batch") + fmt.Sprintf(" [hidden %d]", hidden)
	for _, l := range stepcharts.LaunchEndCrossovers(rs, "batch", experiments.Batch) {
		line += "\n" + l
	}
	return stepcharts.WithModelVersus(line, rs)
}

// withHidden names each series after its hidden width too: "xla:cpu · hidden 64".
func withHidden(ss []charts.Series, hidden int) []charts.Series {
	for i := range ss {
		ss[i].Name = fmt.Sprintf("%s · hidden %d", ss[i].Name, hidden)
	}
	return ss
}

// ThroughputChart draws samples per second against batch size for both widths, log–log: a device
// that keeps its time per step flat doubles its throughput with every doubling of the batch.
func ThroughputChart(narrow, wide []results.Result) (*plot.Plot, error) {
	series := withHidden(stepcharts.ThroughputSeries(narrow, experiments.Batch), Narrow)
	series = append(series, withHidden(stepcharts.ThroughputSeries(wide, experiments.Batch), Wide)...)
	return charts.Throughput("Training throughput vs batch size (f32, SGD)", "batch size [samples]", "samples/s", series)
}

// WidthChart draws time per step against hidden width at batch WidthBatch, log–log.
func WidthChart(rs []results.Result) (*plot.Plot, error) {
	return charts.Lines(charts.Axes{
		Title: fmt.Sprintf("Training step 64→h→h→10 at batch %d: time per step vs hidden width", WidthBatch),
		X:     "hidden width h [units]", Y: "time per step [s]",
		LogX: true, LogY: true, XTicks: charts.Pow2Ticks{}, YTicks: charts.LogTicks{Format: units.Duration},
	}, stepcharts.TimeSeries(rs, experiments.Hidden)...)
}

// WidthCrossover is the printed crossover line of the width sweep, with the model's error against
// each GPU step in rs as in Crossover.
func WidthCrossover(rs []results.Result) string {
	return stepcharts.WithModelVersus(stepcharts.CrossoverLine(stepcharts.TimeSeries(rs, experiments.Hidden), "hidden width")+fmt.Sprintf(" [batch %d]", WidthBatch), rs)
}

// FLOPSChart draws achieved FLOP/s against hidden width at batch WidthBatch: how much of its
// arithmetic each device gets to use as the layer widens.
func FLOPSChart(rs []results.Result) (*plot.Plot, error) {
	return charts.Throughput(fmt.Sprintf("Achieved arithmetic vs hidden width (batch %d, training step, f32)", WidthBatch),
		"hidden width h [units]", "FLOP/s", stepcharts.FLOPSSeries(rs, experiments.Hidden))
}
