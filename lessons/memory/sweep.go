package memory

import (
	"fmt"
	"strconv"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// The measured side: peak memory of a training step as the batch grows.

// MeasureBatch times a few training steps of w on dev and measures the peak memory they needed:
// on a GPU the rise of GPU 0's memory in use (NVML, sampled every 5 ms), on the CPU devices the rise
// of this process's peak resident set (device buffers are host memory there). The measured bytes
// are in the result's Metrics[ParamMeasured]. The budget check runs first: a step that cannot fit is
// an error wrapping workloads.ErrOutOfMemory, before anything is allocated.
func MeasureBatch(dev *devices.Device, w workloads.MLP) (results.Result, error) {
	return measureFrom(dev, w, 0)
}

// measureFrom is MeasureBatch counting growth from base bytes in use (0: from now).
func measureFrom(dev *devices.Device, w workloads.MLP, base uint64) (results.Result, error) {
	if err := Budget(dev, w); err != nil {
		return results.Result{}, err
	}
	p := measure.StartPeak(dev.IsGPU(), base)
	r, err := measure.Run(dev, w, measure.Options{Warmup: 1, Reps: 3}, false)
	grew := p.Stop()
	if err != nil {
		return r, err
	}
	setMeasured(&r, dev, p, grew)
	return r, nil
}

// setMeasured records the measured growth in r's Metrics: ParamMeasured, ParamOnGPU (1 when it
// comes from NVML on a GPU) and ParamPeakFallback (1 when p could not see the peak).
func setMeasured(r *results.Result, dev *devices.Device, p *measure.Peak, grew uint64) {
	r.SetMetric(ParamMeasured, float64(grew))
	r.SetMetric(ParamOnGPU, 0)
	if dev.IsGPU() {
		r.SetMetric(ParamOnGPU, 1)
	}
	r.SetMetric(ParamPeakFallback, 0)
	if p.Fallback() {
		r.SetMetric(ParamPeakFallback, 1)
	}
}

// measuredSource says where a result's measured growth comes from: the process's peak RSS, GPU
// memory (NVML), or the fallback (measure.FallbackNote) when the peak could not be seen.
func measuredSource(r results.Result) string {
	switch {
	case metric(r, ParamOnGPU) == 1:
		return "GPU memory (NVML)"
	case metric(r, ParamPeakFallback) == 1:
		return measure.FallbackNote
	}
	return "process peak RSS"
}

// metric is r's measured value name (results.Result.Metric), 0 when absent.
func metric(r results.Result, name string) float64 {
	v, _ := r.Metric(name)
	return v
}

// BatchSweep runs MeasureBatch at each of Batches(s), in increasing order, counting every batch's
// peak from the same baseline (allocators keep some of what they got, so a peak measured after a
// smaller batch is still the larger batch's need). A tiny step is compiled and run first and not
// reported, and the baseline is read after it, so that the compiler's own working memory (which
// the allocator keeps for the next compilation) is not charged to the first batch. step, when not
// nil, is told about progress.
func BatchSweep(dev *devices.Device, s experiments.Scale, step func(done, total int, what string)) ([]results.Result, error) {
	return sweepFrom(dev, s, step, measureFrom)
}

// sweepFrom runs one at each batch size of Batches(s), in increasing order, after a small
// unreported warm-up step, every batch counted from the same baseline read after that step.
func sweepFrom(dev *devices.Device, s experiments.Scale, step func(done, total int, what string),
	one func(*devices.Device, workloads.MLP, uint64) (results.Result, error)) ([]results.Result, error) {
	var models []workloads.MLP
	for _, b := range Batches(s) {
		models = append(models, Model(s, b))
	}
	return sweepModels(dev, Model(s, 8), models, step, one)
}

// sweepModels runs one on each model after an unreported warm-up step of warm, every model
// counted from the same baseline read after that step.
func sweepModels(dev *devices.Device, warm workloads.MLP, models []workloads.MLP, step func(done, total int, what string),
	one func(*devices.Device, workloads.MLP, uint64) (results.Result, error)) ([]results.Result, error) {
	if _, err := measure.Run(dev, warm, measure.Options{Warmup: 1, Reps: 1}, false); err != nil {
		return nil, err
	}
	base := measure.InUse(dev.IsGPU())
	var out []results.Result
	for i, w := range models {
		if step != nil {
			step(i, len(models), fmt.Sprintf("batch %d on %s", w.Batch, dev.Name))
		}
		r, err := one(dev, w, base)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// SweepHere runs BatchSweep on the default device (the GPU when there is one) at the current scale,
// adds results recorded on devices this machine lacks, and keeps them for the chart cell.
func SweepHere(step func(done, total int, what string)) ([]results.Result, error) {
	return sweepHere(BatchSweep, "batch-memory", KeepBatch, step)
}

// sweepHere runs sweep on the default device at the current scale, adds the recordings of
// experiment name for devices not here, and keeps the results under keep.
func sweepHere(sweep func(*devices.Device, experiments.Scale, func(done, total int, what string)) ([]results.Result, error),
	name, keep string, step func(done, total int, what string)) ([]results.Result, error) {
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	rs, err := sweep(dev, experiments.CurrentScale(), step)
	if err != nil {
		return rs, err
	}
	if rs, err = experiments.WithRecorded(rs, Lesson, name); err != nil {
		return rs, err
	}
	return rs, results.Keep(keep, rs)
}

// modelOf rebuilds the MLP a result measured, from its Params.
func modelOf(r results.Result) workloads.MLP {
	p := r.Params
	return workloads.MLP{Batch: p["batch"], In: p["in"], Hidden: p["hidden"], Depth: p["depth"], Out: p["out"],
		Type: dtypes.Float32, Optimizer: workloads.Adam}
}

// SweepTable formats sweep results: per batch, each part from shapes, the total, and the measured
// peak, with where it was measured.
func SweepTable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, r := range rs {
		m := modelOf(r).Memory()
		src := measuredSource(r)
		disturbed = append(disturbed, results.WhyDisturbed(r))
		rows = append(rows, []string{strconv.Itoa(r.Params["batch"]), r.Provenance.Label(),
			units.BytesFixed(float64(m.Parameters + m.Gradients + m.OptimizerState)),
			units.BytesFixed(float64(m.Activations + m.Batch)),
			fmt.Sprintf("%.0f%%", 100*float64(m.Activations+m.Batch)/float64(m.Total())),
			units.BytesFixed(float64(m.Total())),
			units.BytesFixed(metric(r, ParamMeasured)) + " (" + src + ")",
			units.Duration(r.Seconds())})
	}
	return units.Table{Origins: append(results.Origins(rs), units.Formula("the columns marked (shapes): bytes from the MLP's shapes")), Header: []string{"batch", "device", "weights+grads+Adam (shapes)", "activations+batch (shapes)", "activations+batch share",
		"total (shapes)", "measured growth at peak", "step time (median)"}, Rows: rows, Disturbed: disturbed}
}

// Chart draws the sweep as stacked bars per batch size (computed from shapes) with the measured
// peak as markers, for the results of one device (live ones first).
func Chart(rs []results.Result) (*plot.Plot, error) {
	if len(rs) == 0 {
		return nil, charts.ErrNoData
	}
	dev := rs[0].Provenance
	where := "live"
	if dev.Recorded {
		where = "recorded"
	}
	mc := charts.MemoryChart{Title: fmt.Sprintf("Adam MLP step: memory by kind vs batch (%s, %s)", dev.Device, where)}
	onGPU := false
	for _, r := range rs {
		if r.Provenance.Device != dev.Device || r.Provenance.Recorded != dev.Recorded {
			continue
		}
		m := modelOf(r).Memory()
		onGPU = metric(r, ParamOnGPU) == 1
		mc.Bars = append(mc.Bars, charts.Memory{Label: fmt.Sprintf("batch %d", r.Params["batch"]),
			Weights: float64(m.Parameters), Gradients: float64(m.Gradients), Optimizer: float64(m.OptimizerState),
			Activations: float64(m.Activations + m.Batch), Measured: metric(r, ParamMeasured)})
	}
	what := "process peak RSS growth"
	if onGPU {
		what = "GPU memory growth (NVML)"
	}
	mc.Origins = []units.Origin{units.Formula("the stacked bars: bytes of weights, gradients, Adam's two moments and activations from the shapes"),
		results.OriginOf(dev)}
	mc.MeasuredName = fmt.Sprintf("%s — %s", what, charts.Live.Describe(""))
	if dev.Recorded {
		mc.MeasuredName = fmt.Sprintf("%s — %s", what, charts.Recorded.Describe(dev.Model+", "+dev.Date.Format("2006-01-02")))
	}
	return charts.MemoryBars(mc)
}

// Slope is how much memory one more sample costs, between the two largest batches of a sweep on
// one device: from shapes (activations and batch per sample) and measured (growth per sample).
func Slope(rs []results.Result) (shapes, measured float64, ok bool) {
	var live []results.Result
	for _, r := range rs {
		if len(rs) > 0 && r.Provenance.Device == rs[0].Provenance.Device && r.Provenance.Recorded == rs[0].Provenance.Recorded {
			live = append(live, r)
		}
	}
	if len(live) < 2 {
		return 0, 0, false
	}
	a, b := live[len(live)-2], live[len(live)-1]
	db := float64(b.Params["batch"] - a.Params["batch"])
	if db <= 0 {
		return 0, 0, false
	}
	ma, mb := modelOf(a).Memory(), modelOf(b).Memory()
	shapes = float64(mb.Total()-ma.Total()) / db
	measured = (metric(b, ParamMeasured) - metric(a, ParamMeasured)) / db
	return shapes, measured, true
}
