package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

func init() {
	register("bench", "f32 matmul GFLOP/s: xla:cpu vs the Go backend vs numpy/OpenBLAS, same shapes and method", bench)
}

// benchPoint is one timed size on one implementation.
type benchPoint struct {
	N         int           `json:"n"`
	GFLOPS    float64       `json:"gflops"` // at the median
	Median    time.Duration `json:"median_ns"`
	Min       time.Duration `json:"min_ns"`
	CV        float64       `json:"cv"`
	Reps      int           `json:"reps"` // timed samples
	PerSample int           `json:"runs_per_sample"`
	Warmup    int           `json:"warmup"`
	RelErr    float64       `json:"rel_err"` // -1 when not checked
	// Others is the CPU time other processes used while the point was measured, as a percentage of
	// the machine's capacity (all cores): a busy neighbour explains a high CV.
	Others float64 `json:"others_percent"`
	Err    string  `json:"error,omitempty"`
}

// numpyScript times A @ B with numpy using the same method as measure.Time: warm-up runs, one probe
// run that sizes the samples (k consecutive runs ≈ the sample time), then timed samples until both a
// minimum count and a minimum total time are reached; median, min and CV (sample standard deviation
// over mean) of the per-run times. It prints one JSON object per size.
const numpyScript = `
import json, math, os, resource, sys, time, statistics
import numpy as np

def load():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    ru = resource.getrusage(resource.RUSAGE_SELF)
    hz = os.sysconf("SC_CLK_TCK")
    total = sum(v[:8]) / hz  # user nice system idle iowait irq softirq steal
    return total - (v[3] + v[4]) / hz, total, ru.ru_utime + ru.ru_stime

def others(p):
    q = load()
    return max(0.0, 100 * ((q[0] - p[0]) - (q[2] - p[2])) / (q[1] - p[1])) if q[1] > p[1] else 0.0

sizes = [int(s) for s in sys.argv[1].split(",")]
warmup, reps, min_time, max_reps = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
sample_time = float(sys.argv[6])
rng = np.random.default_rng(1)
for n in sizes:
    a = (rng.random((n, n), dtype=np.float32) * 2 - 1)
    b = (rng.random((n, n), dtype=np.float32) * 2 - 1)
    probe = load()
    for _ in range(warmup):
        c = a @ b
    k = 1
    if sample_time > 0:
        t0 = time.perf_counter()
        c = a @ b
        k = max(1, math.ceil(sample_time / (time.perf_counter() - t0)))
    samples, total = [], 0.0
    while len(samples) < reps or (total < min_time and len(samples) < max_reps):
        t0 = time.perf_counter()
        for _ in range(k):
            c = a @ b
        d = time.perf_counter() - t0
        samples.append(d / k)
        total += d
    med = statistics.median(samples)
    cv = statistics.stdev(samples) / statistics.fmean(samples) if len(samples) > 1 else 0.0
    print(json.dumps({"n": n, "gflops": 2 * n**3 / med / 1e9, "median_ns": int(med * 1e9),
                      "min_ns": int(min(samples) * 1e9), "cv": cv, "reps": len(samples), "runs_per_sample": k, "warmup": warmup,
                      "rel_err": -1, "others_percent": others(probe)}), flush=True)
`

func bench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	sizesFlag := fs.String("sizes", "256,512,1024,2048", "matrix sizes n (n×n @ n×n)")
	minTime := fs.Duration("mintime", time.Second, "keep timing each point until this much time has passed")
	minReps := fs.Int("reps", 10, "minimum timed samples per point")
	sampleTime := fs.Duration("sample", 20*time.Millisecond, "time one sample of this many consecutive runs (per-run time = sample / runs); 0 times every run alone")
	goBudget := fs.Duration("go-budget", 12*time.Second, "most time to spend timing one point on the Go backend (it runs 2048³ at a few GFLOP/s)")
	noGo := fs.Bool("no-go", false, "skip the Go backend")
	jsonOut := fs.String("json", "", "also write the table as JSON to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var sizes []int
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("bench: bad size %q", s)
		}
		sizes = append(sizes, n)
	}
	const warmup = 2
	opt := measure.Options{Warmup: warmup, Reps: *minReps, MinTime: *minTime, SampleTime: *sampleTime}

	cpuDev, err := devices.Open(devices.CPU)
	if err != nil {
		return err
	}
	fmt.Printf("whygpu bench — float32 matmul n×n @ n×n, GFLOP/s = 2n³ / median time\n")
	fmt.Printf("host: %s\nmethod: %d warm-up runs, then ≥ %d timed samples and ≥ %v per point, each sample ≈ %v of\n", cpuDev.Model, warmup, *minReps, *minTime, *sampleTime)
	fmt.Printf("consecutive runs (one run when a run is longer); median and CV (stdev/mean) of the per-run times;\n")
	fmt.Printf("others = CPU used by other processes during the point, %% of all cores (anything above a few %% disturbs the timing)\n\n")

	// Each size is measured on every implementation back to back (xla:cpu, numpy, go), so a ratio
	// compares points taken under the same conditions on a shared machine.
	table := map[string][]benchPoint{}
	var goDev *devices.Device
	if !*noGo {
		if goDev, err = devices.Open(devices.Go); err != nil {
			return err
		}
	}
	var npErr error
	for _, n := range sizes {
		table[devices.CPU] = append(table[devices.CPU], benchGoMLX(cpuDev, n, opt))
		if npErr == nil {
			var pts []benchPoint
			if pts, npErr = benchNumpy([]int{n}, warmup, *minReps, *minTime, *sampleTime); npErr != nil {
				fmt.Printf("numpy: not measured: %v\n\n", npErr)
			} else {
				table["numpy"] = append(table["numpy"], pts...)
			}
		}
		if goDev != nil {
			o := opt
			// One run of the pure-Go backend at 2048 takes seconds: estimate from a smaller point and cap
			// the repetitions to fit the budget (at least 3 timed runs after 1 warm-up).
			if est := goEstimate(table[devices.Go], n); est > 0 && time.Duration(float64(*minReps+warmup)*est*float64(time.Second)) > *goBudget {
				o.Warmup = 1
				o.Reps = max(3, int(goBudget.Seconds()/est)-1)
				o.MinTime = 0
				o.SampleTime = 0
			}
			table[devices.Go] = append(table[devices.Go], benchGoMLX(goDev, n, o))
		}
	}

	printBenchTable(sizes, table, !*noGo, npErr == nil)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(table, "", "  ")
		if err := os.WriteFile(*jsonOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// goEstimate predicts the seconds of one Go-backend run at n from the largest smaller point (n³ scaling).
func goEstimate(done []benchPoint, n int) float64 {
	for i := len(done) - 1; i >= 0; i-- {
		if p := done[i]; p.Err == "" && p.N < n && p.Median > 0 {
			r := float64(n) / float64(p.N)
			return p.Median.Seconds() * r * r * r
		}
	}
	return 0
}

// benchGoMLX times and checks one size on a GoMLX device.
func benchGoMLX(dev *devices.Device, n int, opt measure.Options) benchPoint {
	probe := measure.StartProbe() // the same counter every timed result keeps (measure.Disturbance)
	r, err := measure.Run(dev, workloads.Square(n, dtypes.Float32), opt, true)
	if err != nil {
		return benchPoint{N: n, Err: err.Error(), RelErr: -1}
	}
	return benchPoint{N: n, GFLOPS: r.GFLOPS(), Median: r.Stats.Median, Min: r.Stats.Min, CV: r.Stats.CV,
		Reps: r.Stats.N, PerSample: max(1, r.Stats.RunsPerSample), Warmup: opt.Warmup, RelErr: r.RelErr, Others: probe.Stop().OthersPercent()}
}

// benchNumpy runs numpyScript with the course venv's python.
func benchNumpy(sizes []int, warmup, reps int, minTime, sampleTime time.Duration) ([]benchPoint, error) {
	py := filepath.Join(repoRoot(), ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		return nil, fmt.Errorf("%s not found (run `make setup`)", py)
	}
	var s []string
	for _, n := range sizes {
		s = append(s, strconv.Itoa(n))
	}
	cmd := exec.Command(py, "-c", numpyScript, strings.Join(s, ","), strconv.Itoa(warmup), strconv.Itoa(reps),
		strconv.FormatFloat(minTime.Seconds(), 'f', 3, 64), "1000", strconv.FormatFloat(sampleTime.Seconds(), 'f', 4, 64))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("numpy benchmark failed: %w", err)
	}
	var pts []benchPoint
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var p benchPoint
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			return nil, fmt.Errorf("numpy benchmark printed %q: %w", line, err)
		}
		pts = append(pts, p)
	}
	return pts, nil
}

func printBenchTable(sizes []int, table map[string][]benchPoint, withGo, withNumpy bool) {
	cols := []string{devices.CPU}
	if withGo {
		cols = append(cols, devices.Go)
	}
	if withNumpy {
		cols = append(cols, "numpy")
	}
	fmt.Printf("%6s", "n")
	for _, c := range cols {
		name := c
		if c == "numpy" {
			name = "numpy/OpenBLAS"
		}
		fmt.Printf("  %-30s", name)
	}
	if withNumpy {
		fmt.Printf("  %s", "xla:cpu / numpy")
	}
	fmt.Println()
	fmt.Printf("%6s", "")
	for range cols {
		fmt.Printf("  %-30s", "GFLOP/s (CV, samples×runs, others)")
	}
	fmt.Println()
	cell := func(p benchPoint) string {
		if p.Err != "" {
			return "error"
		}
		return fmt.Sprintf("%7.1f (%4.1f%%, %3d×%-3d %2.0f%%)", p.GFLOPS, 100*p.CV, p.Reps, max(1, p.PerSample), p.Others)
	}
	var notes []string
	// A verdict on a target is only given from undisturbed points: while other processes use more than
	// disturbedPercent of the CPUs, a 2-thread matmul measures them, not itself.
	ratio, cvs := verdict{}, verdict{}
	wrong := 0
	for i, n := range sizes {
		fmt.Printf("%6d", n)
		for _, c := range cols {
			if i >= len(table[c]) {
				fmt.Printf("  %-30s", "-")
				continue
			}
			p := table[c][i]
			fmt.Printf("  %-30s", cell(p))
			if p.Err != "" {
				notes = append(notes, fmt.Sprintf("%s at n=%d: %s", c, n, p.Err))
				continue
			}
			switch {
			case p.Others >= disturbedPercent:
				cvs.skip(fmt.Sprintf("%s n=%d", c, n))
				notes = append(notes, fmt.Sprintf("%s at n=%d: disturbed (other processes used %.0f%% of the CPUs): not judged, re-run", c, n, p.Others))
			case p.CV >= 0.05:
				cvs.fail()
				notes = append(notes, fmt.Sprintf("%s at n=%d: CV %.1f%% ≥ 5%% on an undisturbed machine", c, n, 100*p.CV))
			}
			if c == devices.Go && p.Warmup < 2 {
				notes = append(notes, fmt.Sprintf("go at n=%d: %d warm-up and %d timed runs only (one run takes %v; -go-budget)", n, p.Warmup, p.Reps, p.Median.Round(time.Millisecond)))
			}
			if c != "numpy" && p.RelErr > workloads.Tolerance(dtypes.Float32) {
				wrong++
				notes = append(notes, fmt.Sprintf("%s at n=%d: WRONG RESULT, relative error %.2g", c, n, p.RelErr))
			}
		}
		if withNumpy && i < len(table["numpy"]) && i < len(table[devices.CPU]) {
			x, np := table[devices.CPU][i], table["numpy"][i]
			r := math.NaN()
			if np.GFLOPS > 0 && x.Err == "" {
				r = x.GFLOPS / np.GFLOPS
			}
			mark := ""
			if n >= 512 {
				switch {
				case x.Others >= disturbedPercent || np.Others >= disturbedPercent:
					mark = "  (disturbed)"
					ratio.skip(fmt.Sprintf("n=%d", n))
				case r >= 1.5:
					mark = "  ≥ 1.5× ✓"
				default:
					mark = "  < 1.5× ✗"
					ratio.fail()
				}
			}
			fmt.Printf("  %5.2f×%s", r, mark)
		}
		fmt.Println()
	}
	fmt.Println()
	if wrong == 0 {
		fmt.Println("every GoMLX point was checked against a float64 reference: relative error < 1e-5")
	}
	if withNumpy {
		fmt.Printf("target xla:cpu ≥ 1.5× numpy at n ≥ 512: %s\n", ratio)
	}
	fmt.Printf("target CV < 5%% at every point: %s\n", cvs)
	for _, n := range notes {
		fmt.Println("note:", n)
	}
}

// disturbedPercent is the share of the CPUs other processes may use during a point before the point
// is reported as disturbed and left out of the verdicts.
const disturbedPercent = 5

// verdict collects the outcome of one target over the points.
type verdict struct {
	failed  bool
	skipped []string
}

func (v *verdict) fail()            { v.failed = true }
func (v *verdict) skip(what string) { v.skipped = append(v.skipped, what) }

func (v verdict) String() string {
	s := "met"
	if v.failed {
		s = "NOT met"
	}
	if len(v.skipped) > 0 {
		s += fmt.Sprintf(" on the undisturbed points; not judged (disturbed, re-run): %s", strings.Join(v.skipped, ", "))
	}
	return s
}
