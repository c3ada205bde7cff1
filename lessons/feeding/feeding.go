// Package feeding is the code behind notebooks/07-feeding-the-device.ipynb: the CPU's job in a GPU
// node. A goroutine input pipeline (workloads.Pipeline: loader workers doing real CPU work per
// batch, a prefetch queue) feeds training steps; too few workers starve the device, more workers
// feed it until the cores run out. Also: launch-bound tiny models (per-call overhead, and what
// fusing a step into one compiled executable saves) and thread oversubscription (more workers than
// cores, each calling a multi-threaded math library).
//
// Notebook cells stay thin: they call the functions here. Results are kept on disk between cells
// (measure.Keep, and KeepTimelines for the pipeline timelines), and every measurement is registered
// as an experiment so `whygpu record` can run it on a GPU.
package feeding

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/charts"
	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/monitor"
	"github.com/gpu-course/whygpu/pkg/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Lesson is the lesson id: the notebook's file name without ".ipynb".
const Lesson = "07-feeding-the-device"

// Names results are kept under between cells.
const (
	KeepWorkers = Lesson + "-workers"
	KeepLaunch  = Lesson + "-launch"
	KeepOver    = Lesson + "-oversubscription"
)

// Result parameters of the pipeline and oversubscription results (Params is the one free-form field
// a measure.Result has; it survives Keep, Save and recording).
const (
	ParamWorkers  = "workers"           // loader workers (or concurrent math jobs)
	ParamCostUS   = "cost_per_batch_us" // CPU work per batch, µs
	ParamStepUS   = "step_us"           // the device's own step time, µs
	ParamUtilPM   = "device_util_permille"
	ParamCores    = "cores"
	ParamCPUPM    = "cpu_util_permille" // mean CPU utilization over all cores while the loop ran (monitor)
	ParamLatUS    = "job_latency_us"    // oversubscription: mean time one job took
	ParamCalls    = "calls"             // launch experiment: executable calls per forward pass
	LoaderToStep  = 2.0                 // the sweep's loader cost per batch, in device step times
	sweepSteps    = 80
	launchWidth   = 16
	launchLayers  = 16
	overMatmulDim = 192
)

func init() {
	experiments.Register(experiments.Experiment{
		Lesson: Lesson, Name: "workers-sweep",
		Doc: "training from a loader pipeline (CPU work = 2× the step per batch): device utilization vs loader workers",
		Run: func(dev *devices.Device, s experiments.Scale) ([]measure.Result, error) {
			rs, _, err := WorkersSweep(dev, s, Workers(s), nil)
			return rs, err
		},
	})
	experiments.Register(experiments.Experiment{
		Lesson: Lesson, Name: "launch-bound",
		Doc: "a tiny MLP forward at batch 1: one executable per op vs one fused executable",
		Run: func(dev *devices.Device, s experiments.Scale) ([]measure.Result, error) {
			return LaunchBound(dev)
		},
	})
	experiments.Register(experiments.Experiment{
		Lesson: Lesson, Name: "oversubscription",
		Doc: "throughput and latency of concurrent multi-threaded matmul jobs vs job count",
		Run: func(dev *devices.Device, s experiments.Scale) ([]measure.Result, error) {
			ws := OverWorkers()
			if dev.IsGPU() {
				ws = []int{1, 2, 4, 8} // one compiled instance per worker: keep the GPU recording short
			}
			return Oversubscription(dev, ws, 0)
		},
	})
}

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
	return units.Table{Header: []string{"loader workers (source: 300 ms step, 400 ms per batch)", "time per step (model)", "device busy (model)", "device idle per step (model)"}, Rows: rows}
}

// Timeline is one pipeline run kept for the charts: its report and the CPU utilization sampled
// while it ran.
type Timeline struct {
	Report workloads.PipelineReport `json:"report"`
	CPU    monitor.Timeline         `json:"cpu"`
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
// count; the median is the wall time per step, Params the utilization) and the timelines (spans
// and CPU utilization) of every run.
func WorkersSweep(dev *devices.Device, s experiments.Scale, workers []int, step func(done, total int, what string)) ([]measure.Result, []Timeline, error) {
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
	var rs []measure.Result
	var tls []Timeline
	for i, k := range workers {
		if step != nil {
			step(i, len(workers), fmt.Sprintf("%d loader workers", k))
		}
		var rep workloads.PipelineReport
		tl, err := monitor.Run(10*time.Millisecond, func() error {
			var err error
			rep, err = t.TrainFrom(workloads.Pipeline{Workers: k, Prefetch: 2, CostPerBatch: cost}, sweepSteps)
			return err
		})
		if err != nil {
			return rs, tls, err
		}
		tls = append(tls, Timeline{Report: rep, CPU: tl})
		per := rep.Wall / time.Duration(rep.Steps)
		r := measure.Result{
			Workload: "pipeline", Label: fmt.Sprintf("%s fed by %d loader workers × %v/batch", w, k, cost.Round(time.Microsecond)),
			DType: "float32", FLOPs: w.FLOPs(), Bytes: w.Bytes(), RelErr: -1,
			Params: map[string]int{ParamWorkers: k, ParamCostUS: int(cost.Microseconds()), ParamStepUS: int(st.Microseconds()),
				ParamUtilPM: int(1000 * rep.Utilization()), ParamCPUPM: int(10 * tl.MeanCPU()), ParamCores: devices.NumCPU(), "batch": w.Batch},
			Stats:      measure.Stats{N: rep.Steps, Median: per, Min: per, P90: per, Mean: per},
			Provenance: measure.ProvenanceOf(dev),
		}
		rs = append(rs, r)
	}
	return rs, tls, nil
}

// KeepTimelinesName is the name pipeline timelines are kept under between cells.
const KeepTimelinesName = Lesson + "-timelines"

// KeepTimelines saves pipeline timelines for a later cell (measure.KeepValue).
func KeepTimelines(tls []Timeline) error { return measure.KeepValue(KeepTimelinesName, tls) }

// RecallTimelines loads what KeepTimelines saved.
func RecallTimelines() ([]Timeline, error) { return measure.RecallValue[[]Timeline](KeepTimelinesName) }

// SweepHere runs WorkersSweep on the default device at the current scale, adds results recorded on
// devices this machine lacks, and keeps results and timelines for the chart cells.
func SweepHere(step func(done, total int, what string)) ([]measure.Result, error) {
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	s := experiments.CurrentScale()
	rs, tls, err := WorkersSweep(dev, s, Workers(s), step)
	if err != nil {
		return rs, err
	}
	if rs, err = experiments.WithRecorded(rs, Lesson, "workers-sweep"); err != nil {
		return rs, err
	}
	if err := KeepTimelines(tls); err != nil {
		return rs, err
	}
	return rs, measure.Keep(KeepWorkers, rs)
}

// SweepTable formats sweep results: per worker count, time per step, device utilization (measured)
// and what Fed predicts with cores to spare.
func SweepTable(rs []measure.Result) units.Table {
	var rows [][]string
	for _, r := range rs {
		p := r.Params
		step := time.Duration(p[ParamStepUS]) * time.Microsecond
		cost := time.Duration(p[ParamCostUS]) * time.Microsecond
		_, model := Fed(step, cost, p[ParamWorkers])
		rows = append(rows, []string{r.Provenance.Label(), strconv.Itoa(p[ParamCores]), strconv.Itoa(p[ParamWorkers]),
			step.String(), cost.String(), units.Duration(r.Seconds()),
			fmt.Sprintf("%.0f%%", float64(p[ParamUtilPM])/10), fmt.Sprintf("%.0f%%", 100*model), fmt.Sprintf("%.0f%%", float64(p[ParamCPUPM])/10)})
	}
	return units.Table{Header: []string{"device", "cores", "loader workers", "step alone (median)", "loader CPU work per batch", "time per step with loader",
		"device busy (measured)", "device busy (model, cores to spare)", "CPU busy (monitor)"}, Rows: rows}
}

// UtilizationChart draws measured device utilization against loader workers, with Fed's model (cores
// to spare) dotted, one line per device.
func UtilizationChart(rs []measure.Result) (*plot.Plot, error) {
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
			s = &charts.Series{Name: fmt.Sprintf("%s (%d cores)", r.Provenance.Device, r.Params[ParamCores]), Source: src, Note: note}
			byDev[key] = s
			order = append(order, key)
		}
		k := r.Params[ParamWorkers]
		s.Points = append(s.Points, charts.XY{X: float64(k), Y: float64(r.Params[ParamUtilPM]) / 10})
		if !r.Provenance.Recorded {
			_, u := Fed(time.Duration(r.Params[ParamStepUS]), time.Duration(r.Params[ParamCostUS]), k)
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
	return charts.Lines(charts.Axes{Title: fmt.Sprintf("Device busy vs loader workers (loader work per batch = %.0f× the step)", LoaderToStep),
		X: "loader workers", Y: "device busy [% of wall time]", LogX: true, XTicks: charts.Pow2Ticks{}, YTicks: charts.PercentTicks{}}, series...)
}

// activity is the device's activity as a square wave over the first steps of a run: 100 while a
// training step computes, 0 while the loop waits for a batch or uploads it.
func activity(rep workloads.PipelineReport, steps int) []charts.XY {
	var pts []charts.XY
	n := 0
	for _, sp := range rep.Spans {
		if sp.Kind != workloads.SpanCompute {
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
		Title: fmt.Sprintf("%d loader worker(s): device busy %.0f%%, CPU %.0f%% (first %d steps)",
			r.Pipeline.Workers, 100*r.Utilization(), tl.CPU.MeanCPU(), steps),
		X: "time since the loop started [s]", Y: "device computing [%]", YTicks: charts.PercentTicks{}}, s)
}

// ---- launch-bound ----

// launchOp is one small executable of the unfused forward pass.
type launchOp struct {
	exec *graph.Exec
	args func(h *tensors.Tensor) []any
}

// LaunchBound times the forward pass of a tiny MLP at batch 1 (launchLayers layers of width
// launchWidth, weights tied) two ways on dev: as one executable per operation (matmul, bias add, tanh: what an
// eager framework launches, one kernel each) and as one compiled executable for the whole pass
// (what XLA does: it fuses the step). Each result's median is the time of one forward pass; Params
// carry the number of executable calls.
func LaunchBound(dev *devices.Device) (rs []measure.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("launch-bound experiment on %s: %v", dev.Name, r)
		}
	}()
	b := dev.Backend()
	n, L := launchWidth, launchLayers
	up := func(v []float32, dims ...int) (*tensors.Tensor, error) {
		t := tensors.FromFlatDataAndDimensions(v, dims...)
		if err := t.MaterializeOnDevice(b, false, 0); err != nil {
			return nil, err
		}
		return t, nil
	}
	rnd := func(k int, seed int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = float32(math.Sin(float64(seed*1000+i))) * 0.3
		}
		return v
	}
	x, err := up(rnd(n, 0), 1, n)
	if err != nil {
		return nil, err
	}
	// One weight matrix and bias shared by every layer (tied weights), so that both versions pass
	// the same few arguments per call and differ only in the number of calls.
	wt, err := up(rnd(n*n, 1), n, n)
	if err != nil {
		return nil, err
	}
	bt, err := up(rnd(n, 2), 1, n)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, t := range []*tensors.Tensor{x, wt, bt} {
			_ = t.FinalizeAll()
		}
	}()
	matmul, err := graph.NewExec(b, func(h, w *graph.Node) *graph.Node { return graph.MatMul(h, w) })
	if err != nil {
		return nil, err
	}
	add, err := graph.NewExec(b, func(h, bb *graph.Node) *graph.Node { return graph.Add(h, bb) })
	if err != nil {
		return nil, err
	}
	tanh, err := graph.NewExec(b, func(h *graph.Node) *graph.Node { return graph.Tanh(h) })
	if err != nil {
		return nil, err
	}
	fused, err := graph.NewExec(b, func(h, w, bb *graph.Node) *graph.Node {
		for l := 0; l < L; l++ {
			h = graph.Tanh(graph.Add(graph.MatMul(h, w), bb))
		}
		return h
	})
	if err != nil {
		return nil, err
	}
	defer func() { matmul.Finalize(); add.Finalize(); tanh.Finalize(); fused.Finalize() }()

	unfusedPass := func() error {
		h := x
		for l := 0; l < L; l++ {
			for _, step := range []func(*tensors.Tensor) ([]*tensors.Tensor, error){
				func(h *tensors.Tensor) ([]*tensors.Tensor, error) { return matmul.Exec(h, wt) },
				func(h *tensors.Tensor) ([]*tensors.Tensor, error) { return add.Exec(h, bt) },
				func(h *tensors.Tensor) ([]*tensors.Tensor, error) { return tanh.Exec(h) },
			} {
				out, err := step(h)
				if err != nil {
					return err
				}
				if h != x {
					_ = h.FinalizeAll()
				}
				h = out[0]
			}
		}
		if h != x {
			_ = h.FinalizeAll()
		}
		return nil
	}
	fusedPass := func() error {
		out, err := fused.Exec(x, wt, bt)
		for _, o := range out {
			_ = o.FinalizeAll()
		}
		return err
	}
	flops := float64(L) * (2*float64(n*n) + 2*float64(n)) // matmul + add + tanh (1 each)
	opt := measure.Options{Warmup: 3, Reps: 7, SampleTime: 20 * time.Millisecond}
	for _, c := range []struct {
		name  string
		calls int
		fn    func() error
	}{{"one executable per op", 3 * L, unfusedPass}, {"one fused executable", 1, fusedPass}} {
		st, _, err := measure.Time(c.fn, opt)
		if err != nil {
			return rs, err
		}
		rs = append(rs, measure.Result{Workload: "mlp-forward", Label: fmt.Sprintf("%d-layer MLP forward, batch 1, width %d: %s", L, n, c.name),
			DType: "float32", FLOPs: flops, RelErr: -1, Stats: st,
			Params:     map[string]int{ParamCalls: c.calls, "layers": L, "width": n, "batch": 1},
			Provenance: measure.ProvenanceOf(dev)})
	}
	return rs, nil
}

// LaunchHere runs LaunchBound on every XLA device here, adds recorded results for devices this
// machine lacks, and keeps them.
func LaunchHere() ([]measure.Result, error) {
	return experiments.OnEachDevice(Lesson, "launch-bound", KeepLaunch, LaunchBound)
}

// LaunchTable formats LaunchBound results: calls, time per pass and per call, and how much of the
// time the arithmetic itself would take at ceiling FLOP/s (when given, >0).
func LaunchTable(rs []measure.Result, ceiling float64) units.Table {
	var rows [][]string
	for _, r := range rs {
		calls := max(1, r.Params[ParamCalls])
		math := "—"
		if ceiling > 0 && !r.Provenance.Recorded {
			math = fmt.Sprintf("%.2f%%", 100*r.FLOPs/ceiling/r.Seconds())
		}
		rows = append(rows, []string{r.Provenance.Label(), r.Label, strconv.Itoa(calls), units.Duration(r.Seconds()),
			units.Duration(r.Seconds() / float64(calls)), units.Plain(r.FLOPs), math})
	}
	return units.Table{Header: []string{"device", "forward pass", "executable calls", "time per pass (median)", "per call", "FLOPs", "arithmetic share at the measured matmul ceiling"}, Rows: rows}
}

// ---- oversubscription ----

// OverWorkers are the concurrent job counts the oversubscription experiment tries: up to 8× the cores.
func OverWorkers() []int {
	c := devices.NumCPU()
	return slices.Compact([]int{1, c, 2 * c, 4 * c, 8 * c})
}

// Oversubscription runs jobs matmuls (overMatmulDim², float32, on dev: XLA's multi-threaded CPU
// kernels) spread over k concurrent workers for each k, and reports throughput (jobs/s, as
// FLOP/s in the result) and each job's mean latency. Past the core count throughput cannot rise;
// what grows is the time each job takes, and the memory each in-flight job holds. jobs 0 picks 240.
func Oversubscription(dev *devices.Device, workers []int, jobs int) ([]measure.Result, error) {
	if jobs <= 0 {
		jobs = 240
	}
	mm := workloads.Square(overMatmulDim, dtypes.Float32)
	maxK := 0
	for _, k := range workers {
		maxK = max(maxK, k)
	}
	insts := make([]workloads.Instance, maxK)
	defer func() {
		for _, in := range insts {
			if in != nil {
				in.Close()
			}
		}
	}()
	for i := range insts {
		in, err := mm.Prepare(dev)
		if err != nil {
			return nil, err
		}
		insts[i] = in
		if _, err := in.Compile(); err != nil {
			return nil, err
		}
		if err := in.Run(); err != nil { // warm-up
			return nil, err
		}
	}
	var rs []measure.Result
	for _, k := range workers {
		var next, lat int64
		var mu sync.Mutex
		var firstErr error
		var wg sync.WaitGroup
		t0 := time.Now()
		for i := 0; i < k; i++ {
			wg.Add(1)
			go func(in workloads.Instance) {
				defer wg.Done()
				for {
					mu.Lock()
					if next >= int64(jobs) || firstErr != nil {
						mu.Unlock()
						return
					}
					next++
					mu.Unlock()
					a := time.Now()
					err := in.Run()
					d := time.Since(a)
					mu.Lock()
					lat += int64(d)
					if err != nil && firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}(insts[i])
		}
		wg.Wait()
		wall := time.Since(t0)
		if firstErr != nil {
			return rs, firstErr
		}
		per := wall / time.Duration(jobs)
		rs = append(rs, measure.Result{Workload: "matmul-jobs", Label: fmt.Sprintf("%d jobs of %s on %d concurrent workers", jobs, mm, k),
			DType: "float32", FLOPs: mm.FLOPs(), Bytes: mm.Bytes(), RelErr: -1,
			Stats:      measure.Stats{N: jobs, Median: per, Min: per, P90: per, Mean: per},
			Params:     map[string]int{ParamWorkers: k, ParamLatUS: int(time.Duration(lat / int64(jobs)).Microseconds()), ParamCores: devices.NumCPU()},
			Provenance: measure.ProvenanceOf(dev)})
	}
	return rs, nil
}

// OversubscriptionHere runs Oversubscription on xla:cpu (the machine's cores are the point) and
// keeps the results.
func OversubscriptionHere() ([]measure.Result, error) {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return nil, err
	}
	rs, err := Oversubscription(dev, OverWorkers(), 0)
	if err != nil {
		return rs, err
	}
	return rs, measure.Keep(KeepOver, rs)
}

// OverTable formats Oversubscription results.
func OverTable(rs []measure.Result) units.Table {
	var rows [][]string
	for _, r := range rs {
		rows = append(rows, []string{r.Provenance.Label(), strconv.Itoa(r.Params[ParamCores]), strconv.Itoa(r.Params[ParamWorkers]),
			fmt.Sprintf("%.0f", 1/r.Seconds()), units.SI(r.FLOPS(), "FLOP/s"),
			units.Duration(float64(r.Params[ParamLatUS]) * 1e-6)})
	}
	return units.Table{Header: []string{"device", "cores", "concurrent workers", "jobs/s (throughput)", "achieved", "mean time per job (latency)"}, Rows: rows}
}

// OverChart draws throughput and per-job latency (normalized to one worker) against workers.
func OverChart(rs []measure.Result) (*plot.Plot, error) {
	if len(rs) == 0 {
		return nil, charts.ErrNoData
	}
	base, lat0 := rs[0].Seconds(), float64(rs[0].Params[ParamLatUS])
	thr := charts.Series{Name: "throughput (jobs/s, relative to 1 worker)", Source: charts.Live}
	lat := charts.Series{Name: "time one job takes (relative to 1 worker)", Source: charts.Live}
	for _, r := range rs {
		k := float64(r.Params[ParamWorkers])
		thr.Points = append(thr.Points, charts.XY{X: k, Y: base / r.Seconds()})
		if lat0 > 0 {
			lat.Points = append(lat.Points, charts.XY{X: k, Y: float64(r.Params[ParamLatUS]) / lat0})
		}
	}
	return charts.Lines(charts.Axes{Title: fmt.Sprintf("Oversubscription on %d cores: %d×%d float32 matmul jobs (XLA's multi-threaded kernels)", rs[0].Params[ParamCores], overMatmulDim, overMatmulDim),
		X: "concurrent workers", Y: "relative to one worker [×]", LogX: true, LogY: true, XTicks: charts.Pow2Ticks{}}, thr, lat)
}
