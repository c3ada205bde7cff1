package feeding

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/monitor"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
	"github.com/gpu-course/whygpu/pkg/workloads/train"
)

// The input pipeline: loader workers feeding training steps, modeled and measured.

// Model is the network the pipeline feeds: a float32 SGD MLP whose step takes a few milliseconds
// on a laptop CPU (the GPU scale makes it wide enough to be worth a GPU).
func Model(s experiments.Scale) workloads.MLP {
	return experiments.Pick(s,
		workloads.MLP{Batch: 64, In: 256, Hidden: 256, Depth: 2, Out: 16, Type: dtypes.Float32},
		workloads.MLP{Batch: 512, In: 1024, Hidden: 4096, Depth: 4, Out: 16, Type: dtypes.Float32})
}

// Workers are the loader worker counts the sweep tries: up to twice the cores.
func Workers(s experiments.Scale) []int {
	ws := []int{1, 2}
	for w := 4; w <= 2*devices.NumCPU() && w <= 16; w *= 2 {
		ws = append(ws, w)
	}
	if devices.NumCPU() <= 2 {
		ws = append(ws, 4)
	}
	return slices.Compact(ws) // ascending, so equal counts are neighbours
}

// Fed is the model of a loader feeding a device, with cores to spare: a step every max(step,
// load/workers), the device busy step/period of the time. It is the source's arithmetic: a 300 ms
// step behind a 400 ms loader runs at 75 %.
func Fed(step, load time.Duration, workers int) (period time.Duration, util float64) {
	if workers < 1 {
		workers = 1
	}
	period = max(step, load/time.Duration(workers))
	return period, float64(step) / float64(period)
}

// WorkersNeeded is the fewest workers that keep the device fed: ⌈load ÷ step⌉.
func WorkersNeeded(step, load time.Duration) int {
	return int(math.Ceil(float64(load) / float64(step)))
}

// SourceExample is the source's 300 ms step behind a 400 ms loader, through Fed.
func SourceExample() units.Table {
	step, load := 300*time.Millisecond, 400*time.Millisecond
	var rows [][]string
	for _, w := range []int{1, 2, 4} {
		p, u := Fed(step, load, w)
		rows = append(rows, []string{strconv.Itoa(w), p.String(), fmt.Sprintf("%.0f%%", 100*u), (p - step).String()})
	}
	return units.Table{Origins: []units.Origin{units.Formula("Fed(step, load, workers) on the source's 300 ms step and 400 ms loader")}, Header: []string{"loader workers (source: 300 ms step, 400 ms per batch)", "time per step (model)", "device busy (model)", "device idle per step (model)"}, Rows: rows}
}

// Timeline is one pipeline run kept for the charts: its report and the CPU utilization sampled
// while it ran.
type Timeline struct {
	Report train.PipelineReport `json:"report"`
	CPU    monitor.Timeline     `json:"cpu"`
}

// StepTime measures the median training step of w on dev (batch resident, no loader): the device's
// own speed, which sets the loader's pace.
func StepTime(dev *devices.Device, w workloads.MLP) (time.Duration, error) {
	r, err := measure.Run(dev, w, measure.Options{Warmup: 2, Reps: 10}, false)
	if err != nil {
		return 0, err
	}
	return r.Stats.Median, nil
}

// WorkersSweep measures the step time of Model(s) on dev, sets the loader's CPU work per batch to
// LoaderToStep × that, and trains from the pipeline with each worker count: the results (one per
// count; the median is the wall time per step, Metrics the utilization) and the timelines (spans
// and CPU utilization) of every run.
func WorkersSweep(dev *devices.Device, s experiments.Scale, workers []int, step func(done, total int, what string)) ([]results.Result, []Timeline, error) {
	w := Model(s)
	st, err := StepTime(dev, w)
	if err != nil {
		return nil, nil, err
	}
	cost := time.Duration(LoaderToStep * float64(st))
	t, err := w.NewTrainer(dev)
	if err != nil {
		return nil, nil, err
	}
	defer t.Close()
	var rs []results.Result
	var tls []Timeline
	for i, k := range workers {
		if step != nil {
			step(i, len(workers), fmt.Sprintf("%d loader workers", k))
		}
		var rep train.PipelineReport
		probe := measure.StartProbe()
		tl, err := monitor.Run(10*time.Millisecond, func() error {
			var err error
			rep, err = train.FromPipeline(t, data.Pipeline{Workers: k, Prefetch: 2, CostPerBatch: cost}, sweepSteps)
			return err
		})
		if err != nil {
			return rs, tls, err
		}
		tls = append(tls, Timeline{Report: rep, CPU: tl})
		r := results.Result{
			Workload: "pipeline", Label: fmt.Sprintf("%s fed by %d loader workers × %v/batch", w, k, cost.Round(time.Microsecond)),
			DType: "float32", FLOPs: w.FLOPs(), Bytes: w.Bytes(), RelErr: -1,
			Params: map[string]int{ParamWorkers: k, "batch": w.Batch},
			Metrics: map[string]float64{ParamCores: float64(devices.NumCPU()), ParamCostUS: float64(cost) / 1e3, ParamStepUS: float64(st) / 1e3,
				ParamUtilPM: 1000 * rep.Utilization(), ParamCPUPM: 10 * tl.MeanCPU()},
			Stats:      oneSample(rep.Wall, rep.Steps, probe.Stop()),
			Provenance: results.ProvenanceOf(dev),
		}
		rs = append(rs, r)
	}
	return rs, tls, nil
}

// KeepTimelinesName is the name pipeline timelines are kept under between cells.
const KeepTimelinesName = Lesson + "-timelines"

// KeepTimelines saves pipeline timelines for a later cell (results.KeepValue).
func KeepTimelines(tls []Timeline) error { return results.KeepValue(KeepTimelinesName, tls) }

// RecallTimelines loads what KeepTimelines saved.
func RecallTimelines() ([]Timeline, error) { return results.RecallValue[[]Timeline](KeepTimelinesName) }

// SweepHere runs WorkersSweep at the cell's worker counts on the default device at the current
// scale, adds results recorded on devices this machine lacks (at the counts they were recorded with:
// Workers), and keeps results and timelines for the chart cells. Counts Validate refuses are refused
// before anything starts.
func SweepHere(l Loader, step func(done, total int, what string)) ([]results.Result, error) {
	if err := l.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	rs, tls, err := WorkersSweep(dev, experiments.CurrentScale(), l.Workers, step)
	if err != nil {
		return rs, err
	}
	if rs, err = experiments.WithRecorded(rs, Lesson, "workers-sweep"); err != nil {
		return rs, err
	}
	if err := KeepTimelines(tls); err != nil {
		return rs, err
	}
	return rs, results.Keep(KeepWorkers, rs)
}

// FedShare is how well the loader fed the device in run r: the step's own time (alone, batch
// resident) ÷ the measured time per step, i.e. the steps per second reached as a share of what the
// device alone sustains; Fed's util is the same ratio in the model. On xla:cpu it is the honest
// figure: the loop's "step running" share (ParamUtilPM) counts a step slowed by the loaders sharing
// its cores as busy, so it can rise while steps per second fall. 0 without a time.
func FedShare(r results.Result) float64 {
	if r.Seconds() <= 0 {
		return 0
	}
	return metric(r, ParamStepUS) * 1e-6 / r.Seconds()
}

// SweepTable formats sweep results: per worker count, the time per step (the headline), the fed
// time per step with cores to spare (Fed), the fed share (step alone ÷ time per step) and the share
// of the wall time a step was running, labeled as contended.
func SweepTable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, r := range rs {
		disturbed = append(disturbed, results.WhyDisturbed(r))
		p := r.Params
		step := time.Duration(metric(r, ParamStepUS) * 1e3).Truncate(time.Microsecond)
		cost := time.Duration(metric(r, ParamCostUS) * 1e3).Truncate(time.Microsecond)
		period, _ := Fed(step, cost, p[ParamWorkers])
		rows = append(rows, []string{r.Provenance.Label(), fmt.Sprint(metric(r, ParamCores)), strconv.Itoa(p[ParamWorkers]),
			step.String(), cost.String(), units.Duration(r.Seconds()), units.Duration(period.Seconds()),
			fmt.Sprintf("%.0f%%", 100*FedShare(r)),
			fmt.Sprintf("%.0f%%", metric(r, ParamUtilPM)/10), fmt.Sprintf("%.0f%%", metric(r, ParamCPUPM)/10)})
	}
	return units.Table{Origins: append(results.Origins(rs), units.Model("Fed: max(step, load ÷ workers), cores to spare")),
		Header: []string{"device", "cores", "loader workers", "step alone (median)", "loader CPU work per batch",
			"time per step with loader", "time per step (model)", "fed: step alone ÷ time per step",
			"step running (contended)", "CPU busy (monitor)"}, Rows: rows, Disturbed: disturbed}
}

// UtilizationChart draws the measured fed share (step alone ÷ time per step) against loader
// workers, with Fed's model (cores to spare) dotted, one line per device.
func UtilizationChart(rs []results.Result) (*plot.Plot, error) {
	byDev := map[string]*charts.Series{}
	var order []string
	var model charts.Series
	for _, r := range rs {
		key := r.Provenance.Label()
		s, ok := byDev[key]
		if !ok {
			src, note := charts.Live, ""
			if r.Provenance.Recorded {
				src, note = charts.Recorded, r.Provenance.Model+", "+r.Provenance.Date.Format("2006-01-02")
			}
			s = &charts.Series{Name: fmt.Sprintf("%s (%d cores)", r.Provenance.Device, int(metric(r, ParamCores))), Source: src, Note: note}
			byDev[key] = s
			order = append(order, key)
		}
		k := r.Params[ParamWorkers]
		s.Points = append(s.Points, charts.XY{X: float64(k), Y: 100 * FedShare(r)})
		if !r.Provenance.Recorded {
			_, u := Fed(time.Duration(metric(r, ParamStepUS)), time.Duration(metric(r, ParamCostUS)), k)
			model.Points = append(model.Points, charts.XY{X: float64(k), Y: 100 * u})
		}
	}
	var series []charts.Series
	for _, k := range order {
		series = append(series, *byDev[k])
	}
	if len(model.Points) > 0 {
		model.Name, model.Source, model.Note = "loader model with cores to spare", charts.Model, "max(step, load ÷ workers)"
		series = append(series, model)
	}
	return charts.Lines(charts.Axes{Title: fmt.Sprintf("Device fed vs loader workers (loader work per batch = %.0f× the step)", LoaderToStep),
		X: "loader workers", Y: "fed: step alone ÷ time per step [%]", LogX: true, XTicks: charts.Pow2Ticks{}, YTicks: charts.PercentTicks{}}, series...)
}

// activity is the device's activity as a square wave over the first steps of a run: 100 while a
// training step computes, 0 while the loop waits for a batch or uploads it.
func activity(rep train.PipelineReport, steps int) []charts.XY {
	var pts []charts.XY
	n := 0
	for _, sp := range rep.Spans {
		if sp.Kind != train.SpanCompute {
			continue
		}
		if n++; n > steps {
			break
		}
		a, b := sp.Start.Seconds(), sp.End.Seconds()
		pts = append(pts, charts.XY{X: a, Y: 0}, charts.XY{X: a, Y: 100}, charts.XY{X: b, Y: 100}, charts.XY{X: b, Y: 0})
	}
	return pts
}

// TimelineChart draws one pipeline run's device activity over its first `steps` steps, from the
// loop's spans: a square wave that is up while a training step computes and down while the loop
// waits for the loader (a starved device) or uploads the batch.
func TimelineChart(tl Timeline, steps int) (*plot.Plot, error) {
	r := tl.Report
	pts := activity(r, steps)
	if len(pts) == 0 {
		return nil, charts.ErrNoData
	}
	s := charts.Series{Name: fmt.Sprintf("%s computing a step (training-loop spans)", r.Device), Points: pts, Source: charts.Live}
	return charts.Lines(charts.Axes{
		Title: fmt.Sprintf("%d loader worker(s): a step running %.0f%% of the wall time (contended), CPU %.0f%% (first %d steps)",
			r.Pipeline.Workers, 100*r.Utilization(), tl.CPU.MeanCPU(), steps),
		X: "time since the loop started [s]", Y: "device computing [%]", YTicks: charts.PercentTicks{}}, s)
}

// oneSample is the Stats of runs timed together in wall (measure.OneSample: one sample, no spread),
// with the disturbance seen meanwhile.
func oneSample(wall time.Duration, runs int, d results.Disturbance) results.Stats {
	s := measure.OneSample(wall, runs)
	s.Disturbance = d
	return s
}
