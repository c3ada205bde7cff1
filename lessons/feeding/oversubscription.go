package feeding

import (
	"fmt"
	"strconv"
	"strings"
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
// FLOP/s in the result) and each job's mean latency from submit to finish. Once the cores are busy
// throughput cannot rise; what grows is the time each job takes, and the memory each in-flight job
// holds. jobs 0 picks 240.
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
				// A worker submits its next job the moment the last one finished (all submit their
				// first at t0): each job's latency runs from submit to finish, so it includes waiting
				// for a core, the runtime's thread pool and the lock, and Little's law holds
				// (workers ≈ throughput × latency).
				submit := t0
				for {
					mu.Lock()
					if next >= int64(jobs) || firstErr != nil {
						mu.Unlock()
						return
					}
					next++
					mu.Unlock()
					err := in.Run()
					done := time.Now()
					mu.Lock()
					lat += int64(done.Sub(submit))
					if err != nil && firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					submit = done
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
			units.Duration(metric(r, ParamLatUS) * 1e-6), fmt.Sprintf("%.1f", InFlight(1/r.Seconds(), time.Duration(metric(r, ParamLatUS)*1e3)))})
	}
	return units.Table{Origins: results.Origins(rs), Header: []string{"device", "cores", "concurrent workers", "jobs/s (throughput)", "achieved",
		"mean time per job, submit to finish", "jobs in flight (throughput × time per job)"}, Rows: rows, Disturbed: disturbed}
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

// overPoint is one oversubscription run as ReadOver reads it.
type overPoint struct {
	Workers   int
	PerSec    float64       // jobs per second
	Latency   time.Duration // mean time per job, submit to finish
	Disturbed bool
}

// Thresholds ReadOver decides with: throughputs within flatWithin of each other read as the same
// (noise), and a run below dipBelow of the peak is a drop worth naming.
const (
	flatWithin = 0.10
	dipBelow   = 0.70
)

// ReadOver says what the oversubscription runs show, decided from their numbers: where throughput
// peaked against the core count, whether it rose past the cores, which drops were disturbed runs,
// and how the time per job (submit to finish) grew.
func ReadOver(rs []results.Result) string {
	var pts []overPoint
	cores := 0
	for _, r := range rs {
		if r.Seconds() <= 0 {
			continue
		}
		cores = int(metric(r, ParamCores))
		pts = append(pts, overPoint{Workers: r.Params[ParamWorkers], PerSec: 1 / r.Seconds(),
			Latency: time.Duration(metric(r, ParamLatUS) * 1e3), Disturbed: results.WhyDisturbed(r) != ""})
	}
	return readOver(pts, cores)
}

func readOver(pts []overPoint, cores int) string {
	if len(pts) == 0 {
		return "No oversubscription runs: run the cell above first."
	}
	pts = byWorkers(pts, func(p overPoint) int { return p.Workers })
	first, last := pts[0], pts[len(pts)-1]
	var peak, within, beyond overPoint
	for _, p := range pts {
		if p.PerSec > peak.PerSec {
			peak = p
		}
		if p.Workers <= cores && p.PerSec > within.PerSec {
			within = p
		}
		if p.Workers > cores && p.PerSec > beyond.PerSec {
			beyond = p
		}
	}
	rate := func(p overPoint) string { return fmt.Sprintf("%.0f jobs/s at %d workers", p.PerSec, p.Workers) }
	var b strings.Builder
	fmt.Fprintf(&b, "Throughput peaked at %d workers (%.0f jobs/s, %.1f× one worker) on %d cores.", peak.Workers, peak.PerSec, peak.PerSec/first.PerSec, cores)
	switch {
	case within.Workers == 0 || beyond.Workers == 0:
	case beyond.PerSec < within.PerSec:
		fmt.Fprintf(&b, " Past the cores it rose no further: %s, against %s (%.0f%% lower).", rate(beyond), rate(within), 100*(1-beyond.PerSec/within.PerSec))
	case beyond.PerSec <= (1+flatWithin)*within.PerSec:
		fmt.Fprintf(&b, " Past the cores it rose no further: %s, against %s (within %.0f%%: noise).", rate(beyond), rate(within), 100*flatWithin)
	default:
		fmt.Fprintf(&b, " It still rose past the cores (%s, against %s): one job alone left cores idle, and more jobs in flight filled them.", rate(beyond), rate(within))
	}
	// A drop: a run below dipBelow of the best run with fewer workers.
	best, named := 0.0, false
	for _, p := range pts {
		if p.PerSec < dipBelow*best {
			if p.Disturbed {
				fmt.Fprintf(&b, " The drop at %d workers (%.0f jobs/s) is a disturbed run: other programs used the cores meanwhile; rerun when quiet.", p.Workers, p.PerSec)
				named = true
			} else {
				fmt.Fprintf(&b, " At %d workers throughput fell to %.0f jobs/s: the threads competed for the cores (oversubscription's cost).", p.Workers, p.PerSec)
			}
		}
		best = max(best, p.PerSec)
	}
	if len(pts) > 1 && float64(last.Latency) > (1+flatWithin)*float64(first.Latency) {
		fmt.Fprintf(&b, " Each job's time from submit to finish grew from %s to %s: more jobs in flight, each waiting longer (at %d workers %.1f were in flight on average: throughput × time per job, Little's law).",
			units.Duration(first.Latency.Seconds()), units.Duration(last.Latency.Seconds()), last.Workers, InFlight(last.PerSec, last.Latency))
	}
	for _, p := range pts {
		if p.Disturbed && !named {
			b.WriteString(" Other programs disturbed some runs (marked in the table): rerun when the machine is quiet before trusting the trend.")
			break
		}
	}
	return b.String()
}

// InFlight is the mean number of jobs in flight by Little's law: throughput (jobs/s) × the mean
// time a job spends from submit to finish. Below the worker count when some workers waited for a
// core before they could submit.
func InFlight(perSec float64, latency time.Duration) float64 { return perSec * latency.Seconds() }
