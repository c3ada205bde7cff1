package feeding

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Thread oversubscription: more workers than cores, each calling a multi-threaded library.

// OverWorkers are the concurrent job counts the oversubscription experiment tries: up to 8× the
// cores (DefaultOversub's).
func OverWorkers() []int { return DefaultOversub.Workers() }

// Oversubscription runs jobs matmuls (overMatmulDim², float32, on dev: XLA's multi-threaded CPU
// kernels) spread over k concurrent workers for each k, and reports throughput (jobs/s, as
// FLOP/s in the result) and each job's mean latency. Past the core count throughput cannot rise;
// what grows is the time each job takes, and the memory each in-flight job holds. jobs 0 picks 240.
func Oversubscription(dev *devices.Device, workers []int, jobs int) ([]results.Result, error) {
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
	var rs []results.Result
	for _, k := range workers {
		var next, lat int64
		var mu sync.Mutex
		var firstErr error
		var wg sync.WaitGroup
		probe := measure.StartProbe()
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
		rs = append(rs, results.Result{Workload: "matmul-jobs", Label: fmt.Sprintf("%d jobs of %s on %d concurrent workers", jobs, mm, k),
			DType: "float32", FLOPs: mm.FLOPs(), Bytes: mm.Bytes(), RelErr: -1,
			Stats:      oneSample(wall, jobs, probe.Stop()), // the workers are this process: what others did is counted
			Params:     map[string]int{ParamWorkers: k},
			Metrics:    map[string]float64{ParamCores: float64(devices.NumCPU()), ParamLatUS: float64(lat) / float64(jobs) / 1e3},
			Provenance: results.ProvenanceOf(dev)})
	}
	return rs, nil
}

// OversubscriptionHere runs Oversubscription of the cell's worker counts and jobs on xla:cpu (the
// machine's cores are the point) and keeps the results. A run Validate refuses is refused before
// anything is compiled.
func OversubscriptionHere(o Oversub) ([]results.Result, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return nil, err
	}
	rs, err := Oversubscription(dev, o.Workers(), o.Jobs)
	if err != nil {
		return rs, err
	}
	return rs, results.Keep(KeepOver, rs)
}

// OverTable formats Oversubscription results.
func OverTable(rs []results.Result) units.Table {
	var rows [][]string
	var disturbed []string
	for _, r := range rs {
		disturbed = append(disturbed, results.WhyDisturbed(r))
		rows = append(rows, []string{r.Provenance.Label(), fmt.Sprint(metric(r, ParamCores)), strconv.Itoa(r.Params[ParamWorkers]),
			fmt.Sprintf("%.0f", 1/r.Seconds()), units.SI(r.FLOPS(), "FLOP/s"),
			units.Duration(metric(r, ParamLatUS) * 1e-6)})
	}
	return units.Table{Origins: results.Origins(rs), Header: []string{"device", "cores", "concurrent workers", "jobs/s (throughput)", "achieved", "mean time per job (latency)"}, Rows: rows, Disturbed: disturbed}
}

// OverChart draws throughput and per-job latency (normalized to one worker) against workers.
func OverChart(rs []results.Result) (*plot.Plot, error) {
	if len(rs) == 0 {
		return nil, charts.ErrNoData
	}
	base, lat0 := rs[0].Seconds(), metric(rs[0], ParamLatUS)
	thr := charts.Series{Name: "throughput (jobs/s, relative to 1 worker)", Source: charts.Live}
	lat := charts.Series{Name: "time one job takes (relative to 1 worker)", Source: charts.Live}
	for _, r := range rs {
		k := float64(r.Params[ParamWorkers])
		thr.Points = append(thr.Points, charts.XY{X: k, Y: base / r.Seconds()})
		if lat0 > 0 {
			lat.Points = append(lat.Points, charts.XY{X: k, Y: metric(r, ParamLatUS) / lat0})
		}
	}
	return charts.Lines(charts.Axes{Title: fmt.Sprintf("Oversubscription on %d cores: %d×%d float32 matmul jobs (XLA's multi-threaded kernels)", int(metric(rs[0], ParamCores)), overMatmulDim, overMatmulDim),
		X: "concurrent workers", Y: "relative to one worker [×]", LogX: true, LogY: true, XTicks: charts.Pow2Ticks{}}, thr, lat)
}
