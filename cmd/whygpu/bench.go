package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/bench"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"

	"github.com/gomlx/compute/dtypes"
	"github.com/shirou/gopsutil/v4/process"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// benchCase is one workload of the bench, in both its GoMLX form and the request the JAX worker
// (scripts/bench_jax.py) understands.
type benchCase struct {
	w       workloads.Workload
	kind    string         // the worker's name for it: matmul, mlp, layernorm
	params  map[string]int // the worker's parameters
	metric  string         // bench.PerCall, bench.GFLOPS or bench.GBPS
	numpy   bool           // numpy has this workload
	goBack  bool           // the pure-Go backend runs it too (matmuls)
	pipelin bool           // also time JAX without waiting (small calls)
}

func matmulCase(n int) benchCase {
	m := bench.GFLOPS
	if n <= 256 {
		m = bench.PerCall
	}
	return benchCase{w: workloads.Square(n, dtypes.Float32), kind: "matmul", params: map[string]int{"n": n},
		metric: m, numpy: true, goBack: true, pipelin: n <= 64}
}

// benchMLP is the bench's training step: 64→64→64→10, tanh, MSE, SGD, float32 (issue 11's shapes).
func benchMLP(batch int) workloads.MLP {
	return workloads.MLP{Batch: batch, In: 64, Hidden: 64, Out: 10, Depth: 2, Type: dtypes.Float32, Seed: 1}
}

func mlpCase(batch int) benchCase {
	w := benchMLP(batch)
	return benchCase{w: w, kind: "mlp", metric: bench.PerCall, pipelin: batch == 1,
		params: map[string]int{"batch": batch, "in": w.In, "hidden": w.Hidden, "out": w.Out, "depth": w.Depth}}
}

func layernormCase(rows, cols int) benchCase {
	return benchCase{w: membound.LayerNorm{Rows: rows, Cols: cols, Type: dtypes.Float32, Seed: 1}, kind: "layernorm",
		params: map[string]int{"rows": rows, "cols": cols}, metric: bench.GBPS, numpy: true}
}

// value converts a per-call time to the case's metric.
func (c benchCase) value(s time.Duration) float64 {
	switch c.metric {
	case bench.GFLOPS:
		return workloads.FLOPsOf(c.w) / s.Seconds() / 1e9
	case bench.GBPS:
		return workloads.BytesOf(c.w) / s.Seconds() / 1e9
	}
	return s.Seconds()
}

// loadProbe counts the CPU other processes use during a point: measure's probe (the machine's counters
// less this process) less the JAX worker's own CPU time, which is part of the bench, not a neighbour.
type loadProbe struct {
	probe  *measure.Probe
	worker *process.Process
	wcpu   float64
}

func startLoad(worker *process.Process) loadProbe {
	return loadProbe{probe: measure.StartProbe(), worker: worker, wcpu: workerCPU(worker)}
}

func workerCPU(w *process.Process) float64 {
	if w == nil {
		return 0
	}
	t, err := w.Times()
	if err != nil {
		return 0
	}
	return t.User + t.System
}

// stop returns what other processes and the cgroup's CPU quota did since the start: the probe's
// Disturbance with the worker's own CPU time taken out of OthersCores (it is the bench, not a neighbour),
// and the CPU quota's throttling (the worker shares this process's cgroup, so its runs count too).
func (l loadProbe) stop() results.Disturbance {
	d := l.probe.Stop()
	w := workerCPU(l.worker) - l.wcpu
	if d.Wall > 0 {
		d.OthersCores = max(0, d.OthersCores-w/d.Wall.Seconds())
	} else {
		d.OthersCores = 0
	}
	return d
}

// othersPercent is OthersCores as a percentage of the CPUs it was counted on (the seat's).
func othersPercent(d results.Disturbance) float64 { return d.OthersPercent() }

// worst merges the disturbances of an implementation's rounds: the most CPU others used in any, and
// all the quota's pauses.
func worst(a, b results.Disturbance) results.Disturbance {
	a.Counted = a.Counted || b.Counted
	a.OthersCores = max(a.OthersCores, b.OthersCores)
	a.Throttled += b.Throttled
	a.ThrottledTime += b.ThrottledTime
	a.Wall += b.Wall
	return a
}

// jaxWorker is scripts/bench_jax.py running in the bench venv.
type jaxWorker struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	out   *bufio.Scanner
	proc  *process.Process
	jax   string
	numpy string
}

func startWorker(python string) (*jaxWorker, error) {
	if _, err := os.Stat(python); err != nil {
		return nil, fmt.Errorf("%s not found: `make bench` creates the bench venv from requirements-bench.txt", python)
	}
	script := filepath.Join(experiments.Root(), "scripts", "bench_jax.py")
	cmd := exec.Command(python, script)
	cmd.Stderr = os.Stderr
	cmd.Env = append(hlo.PeerEnv(), "JAX_PLATFORMS=cpu") // not the course's XLA dump flags (pkg/measure/hlo)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := &jaxWorker{cmd: cmd, in: in, out: bufio.NewScanner(outPipe)}
	w.out.Buffer(make([]byte, 1<<20), 64<<20)
	var hello struct {
		JAX   string `json:"jax"`
		NumPy string `json:"numpy"`
	}
	if err := w.read(&hello); err != nil {
		w.stop()
		return nil, fmt.Errorf("the JAX worker did not start: %w", err)
	}
	w.jax, w.numpy = hello.JAX, hello.NumPy
	w.proc, _ = process.NewProcess(int32(cmd.Process.Pid))
	return w, nil
}

func (w *jaxWorker) read(v any) error {
	if !w.out.Scan() {
		if err := w.out.Err(); err != nil {
			return err
		}
		return io.ErrUnexpectedEOF
	}
	return json.Unmarshal(w.out.Bytes(), v)
}

// time asks the worker for one block of samples of c on impl; it returns per-call times.
func (w *jaxWorker) time(impl string, c benchCase, opt measure.Options) ([]time.Duration, error) {
	req := map[string]any{"impl": impl, "kind": c.kind, "params": c.params, "warmup": max(opt.Warmup, 0),
		"sample_s": opt.SampleTime.Seconds(), "min_time_s": opt.MinTime.Seconds(), "reps": opt.Reps}
	b, _ := json.Marshal(req)
	if _, err := w.in.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	var ans struct {
		Samples []int64 `json:"samples_ns"`
		Err     string  `json:"error"`
	}
	if err := w.read(&ans); err != nil {
		return nil, err
	}
	if ans.Err != "" {
		return nil, fmt.Errorf("%s", ans.Err)
	}
	out := make([]time.Duration, len(ans.Samples))
	for i, s := range ans.Samples {
		out[i] = time.Duration(s)
	}
	return out, nil
}

func (w *jaxWorker) stop() {
	_ = w.in.Close()
	_ = w.cmd.Wait()
}

// goMLXCase is one case prepared on a GoMLX device.
type goMLXCase struct {
	inst   workloads.Instance
	relErr float64
}

func prepareGoMLX(dev *devices.Device, c benchCase) (*goMLXCase, error) {
	inst, err := c.w.Prepare(dev)
	if err != nil {
		return nil, err
	}
	if _, err := inst.Compile(); err != nil {
		inst.Close()
		return nil, err
	}
	r, err := inst.Check()
	if err != nil {
		inst.Close()
		return nil, err
	}
	return &goMLXCase{inst: inst, relErr: r}, nil
}

// benchOptions is how the bench times each point.
type benchOptions struct {
	rounds     int           // interleaving rounds: each times every implementation once, in turn
	minTime    time.Duration // timed time per point and implementation, over all rounds
	minReps    int           // minimum timed samples per point and implementation, over all rounds
	sampleTime time.Duration // one sample: as many consecutive calls as fill this
	goBudget   time.Duration // most time to spend on one point on the pure-Go backend
}

// benchSides are the implementations the bench compares; a nil one is skipped.
type benchSides struct {
	cpu, async, split, goDev *devices.Device // xla:cpu, its asynchronous client, as four devices, the Go backend
	worker                   *jaxWorker      // JAX and numpy
}

// benchFlags are `whygpu bench`'s flags.
type benchFlags struct {
	sizes, batches, layernorm     string
	opt                           benchOptions
	noGo, noAsync, noSplit, noJAX bool
	python, jsonOut, save         string
}

func parseBenchFlags(args []string) (benchFlags, error) {
	var f benchFlags
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.StringVar(&f.sizes, "sizes", "8,64,256,1024,2048", "matmul sizes n (n×n @ n×n); n ≤ 256 is reported as latency per call")
	fs.StringVar(&f.batches, "batches", "1,32,256,1024", "MLP step batches (64→64→64→10, tanh, MSE, SGD)")
	fs.StringVar(&f.layernorm, "layernorm", "8192x4096", "layernorm rows×cols (empty: none)")
	fs.DurationVar(&f.opt.minTime, "mintime", 900*time.Millisecond, "timed time per point and implementation, over all rounds")
	fs.IntVar(&f.opt.rounds, "rounds", 3, "interleaving rounds: each round times every implementation once, in turn")
	fs.IntVar(&f.opt.minReps, "reps", 9, "minimum timed samples per point and implementation, over all rounds")
	fs.DurationVar(&f.opt.sampleTime, "sample", 5*time.Millisecond, "one sample is as many consecutive calls (each waited for) as fill this; per-call time = sample / calls")
	fs.DurationVar(&f.opt.goBudget, "go-budget", 6*time.Second, "most time to spend on one matmul point on the pure-Go backend")
	fs.BoolVar(&f.noGo, "no-go", false, "skip the pure-Go backend")
	fs.BoolVar(&f.noAsync, "no-async", false, "skip xla:cpu with the plugin's asynchronous client (the course runs it synchronous: devices.CPUAsync)")
	fs.BoolVar(&f.noSplit, "no-split", false, "skip xla:cpu opened as four devices (devices.CPUSplit: the plugin's default and the course's before 2026-12-01, four pool threads; lesson 10 splits its step over them)")
	fs.BoolVar(&f.noJAX, "no-jax", false, "skip JAX and numpy")
	fs.StringVar(&f.python, "python", filepath.Join(experiments.Root(), ".venv", "bench", "bin", "python"), "python of the bench venv (jax[cpu], numpy: requirements-bench.txt)")
	fs.StringVar(&f.jsonOut, "json", "", "also write the report as JSON to this file (docs/bench/ keeps the reports docs/performance.md is rendered from: whygpu perfdoc)")
	fs.StringVar(&f.save, "save", bench.Path(), "save the report here for lessons to read (empty: don't)")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	f.opt.rounds = max(1, f.opt.rounds)
	return f, nil
}

// benchCases are the points the flags ask for: the matmuls, the MLP steps, the layernorm.
func benchCases(f benchFlags) ([]benchCase, error) {
	var cases []benchCase
	ints := func(flagName, s string) ([]int, error) { return positiveInts("bench", flagName, s) }
	sizes, err := ints("-sizes", f.sizes)
	if err != nil {
		return nil, err
	}
	batches, err := ints("-batches", f.batches)
	if err != nil {
		return nil, err
	}
	for _, n := range sizes {
		cases = append(cases, matmulCase(n))
	}
	for _, b := range batches {
		cases = append(cases, mlpCase(b))
	}
	if f.layernorm != "" {
		r, c, ok := strings.Cut(f.layernorm, "x")
		rows, err1 := strconv.Atoi(r)
		cols, err2 := strconv.Atoi(c)
		if !ok || err1 != nil || err2 != nil || rows <= 0 || cols <= 0 {
			return nil, fmt.Errorf("bench: bad -layernorm %q (want ROWSxCOLS)", f.layernorm)
		}
		cases = append(cases, layernormCase(rows, cols))
	}
	return cases, nil
}

// openSides opens the devices the flags keep and starts the JAX worker; a worker that does not start
// is said and left out. The caller stops the worker.
func openSides(f benchFlags) (benchSides, error) {
	var s benchSides
	var err error
	if s.cpu, err = devices.Open(devices.CPU); err != nil {
		return s, err
	}
	open := func(skip bool, config string, dev **devices.Device) error {
		if skip {
			return nil
		}
		var err error
		*dev, err = devices.Open(config)
		return err
	}
	if err := open(f.noAsync, devices.CPUAsync, &s.async); err != nil {
		return s, err
	}
	if err := open(f.noSplit, devices.CPUSplit, &s.split); err != nil {
		return s, err
	}
	if err := open(f.noGo, devices.Go, &s.goDev); err != nil {
		return s, err
	}
	if !f.noJAX {
		if s.worker, err = startWorker(f.python); err != nil {
			fmt.Printf("jax, numpy: not measured: %v\n\n", err)
			s.worker = nil
		}
	}
	return s, nil
}

// newBenchReport is the report's provenance: date, host, CPU, and the versions on both sides.
func newBenchReport(s benchSides) bench.Report {
	host, _ := os.Hostname()
	prov := results.ProvenanceOf(s.cpu)
	rep := bench.Report{Date: time.Now().UTC(), Host: host, CPU: s.cpu.Model, Cores: devices.NumCPU(),
		GoMLX: prov.GoMLX, GoXLA: prov.GoXLA, Plugin: fmt.Sprintf("%s (PJRT %s)", filepath.Base(s.cpu.Plugin), s.cpu.PJRTVersion)}
	if s.worker != nil {
		rep.JAX, rep.NumPy = s.worker.jax, s.worker.numpy
	}
	return rep
}

// printBenchMethod says what is compared and how it is timed, above the table.
func printBenchMethod(rep bench.Report, cpuModel string, o benchOptions) {
	fmt.Printf("whygpu bench — GoMLX %s (go-xla %s, %s) vs JAX %s / numpy %s, float32, on %s\n",
		rep.GoMLX, rep.GoXLA, rep.Plugin, orDash(rep.JAX), orDash(rep.NumPy), cpuModel)
	fmt.Printf("method: every implementation of a point is timed in %d interleaved rounds (≥ %v and ≥ %d samples in all);\n", o.rounds, o.minTime, o.minReps)
	fmt.Printf("a sample is the consecutive calls that fill ~%v, each waited for (JAX: block_until_ready) — except\n", o.sampleTime)
	fmt.Printf("\"jax pipelined\", which waits once per sample; median and CV (stdev/mean) of per-call times, after warm-up\n")
	fmt.Printf("and compilation (timed apart). others = CPU used by other processes during the point, %% of all cores\n")
	fmt.Printf("(\"+thr\": the cgroup's CPU quota throttled the point — GoMLX's runs or the JAX/numpy worker's).\n\n")
}

func runBench(args []string) error {
	for i, a := range args {
		if a == "-cells" || a == "--cells" {
			return runCellsBench(append(slices.Clone(args[:i]), args[i+1:]...))
		}
	}
	f, err := parseBenchFlags(args)
	if err != nil {
		return err
	}
	cases, err := benchCases(f)
	if err != nil {
		return err
	}
	sides, err := openSides(f)
	if err != nil {
		return err
	}
	if sides.worker != nil {
		defer sides.worker.stop()
	}
	rep := newBenchReport(sides)
	rep.Command = strings.TrimSpace("whygpu bench " + strings.Join(args, " "))
	printBenchMethod(rep, sides.cpu.Model, f.opt)
	for i, c := range cases {
		fmt.Fprintf(os.Stderr, "bench [%d/%d] %s\n", i+1, len(cases), c.w)
		rep.Points = append(rep.Points, benchOne(c, sides, f.opt))
		rep.Others = max(rep.Others, rep.Points[len(rep.Points)-1].Others)
	}
	printBench(rep)
	if f.save != "" {
		if err := bench.Save(f.save, rep); err != nil {
			return err
		}
		fmt.Printf("\nsaved to %s (lessons 01 and 07 read it)\n", f.save)
	}
	if f.jsonOut != "" {
		if err := bench.Save(f.jsonOut, rep); err != nil {
			return err
		}
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// benchImpl is one implementation of a point; run times one round and says what disturbed it (others'
// CPU, the cgroup's CPU quota).
type benchImpl struct {
	name string
	run  func(opt measure.Options) ([]time.Duration, results.Disturbance, error)
}

// pointImpls are a point's implementations, prepared (compiled and checked against float64).
type pointImpls struct {
	impls   []benchImpl
	relErr  map[string]float64 // each GoMLX side's error against float64
	prepErr map[string]error   // the sides that failed to prepare
	closers []func()
}

func (p *pointImpls) close() {
	for i := len(p.closers) - 1; i >= 0; i-- {
		p.closers[i]()
	}
}

// addGoMLX prepares c on a GoMLX device (nil: skipped).
func (p *pointImpls) addGoMLX(name string, dev *devices.Device, c benchCase) {
	if dev == nil {
		return
	}
	g, err := prepareGoMLX(dev, c)
	if err != nil {
		p.prepErr[name] = err
		return
	}
	p.relErr[name] = g.relErr
	p.closers = append(p.closers, g.inst.Close)
	p.impls = append(p.impls, benchImpl{name, func(opt measure.Options) ([]time.Duration, results.Disturbance, error) {
		st, s, err := measure.Time(g.inst.Run, opt)
		return s, st.Disturbance, err
	}})
}

// addPeers adds JAX (waiting, and pipelined for small calls) and numpy, which run in the worker.
func (p *pointImpls) addPeers(worker *jaxWorker, c benchCase) {
	if worker == nil {
		return
	}
	names := []string{bench.JAX}
	if c.pipelin {
		names = append(names, bench.JAXPipelined)
	}
	if c.numpy {
		names = append(names, bench.NumPy)
	}
	for _, n := range names {
		p.impls = append(p.impls, benchImpl{n, func(opt measure.Options) ([]time.Duration, results.Disturbance, error) {
			// The peer runs in the worker: its disturbance is counted around the request, as
			// measure.Time counts GoMLX's — others' CPU (less the worker's own) and the cgroup's throttling.
			l := startLoad(worker.proc)
			s, err := worker.time(n, c, opt)
			return s, l.stop(), err
		}})
	}
}

// addGoBackend adds the pure-Go backend, which takes seconds per 2048³ matmul: one untimed run tells
// how many fit the budget.
func (p *pointImpls) addGoBackend(goDev *devices.Device, c benchCase, per measure.Options, o benchOptions) {
	if goDev == nil || !c.goBack {
		return
	}
	g, err := prepareGoMLX(goDev, c)
	if err != nil {
		p.prepErr[devices.Go] = err
		return
	}
	p.closers = append(p.closers, g.inst.Close)
	p.relErr[devices.Go] = g.relErr
	t0 := time.Now()
	if err := g.inst.Run(); err != nil {
		p.prepErr[devices.Go] = err
		return
	}
	one := time.Since(t0)
	goOpt := per
	if time.Duration(o.minReps+2)*one > o.goBudget {
		goOpt = measure.Options{Warmup: -1, Reps: max(1, int(o.goBudget/one)/o.rounds)}
	}
	p.impls = append(p.impls, benchImpl{devices.Go, func(opt measure.Options) ([]time.Duration, results.Disturbance, error) {
		st, s, err := measure.Time(g.inst.Run, goOpt)
		return s, st.Disturbance, err
	}})
}

// benchOne measures one case on every implementation, interleaved over rounds.
func benchOne(c benchCase, sides benchSides, o benchOptions) bench.Point {
	pt := bench.Point{Workload: c.w.Name(), Label: c.w.String(), Params: c.params, Metric: c.metric, Impls: map[string]bench.Impl{}}
	var proc *process.Process
	if sides.worker != nil {
		proc = sides.worker.proc
	}
	probe := startLoad(proc)
	per := measure.Options{Reps: max(1, (o.minReps+o.rounds-1)/o.rounds), MinTime: o.minTime / time.Duration(o.rounds), SampleTime: o.sampleTime}

	p := &pointImpls{relErr: map[string]float64{}, prepErr: map[string]error{}}
	defer p.close()
	p.addGoMLX(devices.CPU, sides.cpu, c)
	p.addGoMLX(devices.CPUAsync, sides.async, c)
	p.addGoMLX(devices.CPUSplit, sides.split, c)
	p.addPeers(sides.worker, c)
	p.addGoBackend(sides.goDev, c, per, o)

	samples, disturbed, errs := runRounds(p.impls, per, o.rounds)
	d := probe.stop()
	pt.Others, pt.Throttled, pt.ThrottledTime = othersPercent(d), d.Throttled, d.ThrottledTime
	for name, err := range p.prepErr {
		pt.Impls[name] = bench.Impl{Err: err.Error(), RelErr: -1}
	}
	for _, im := range p.impls {
		if err := errs[im.name]; err != nil {
			pt.Impls[im.name] = bench.Impl{Err: err.Error(), RelErr: -1}
			continue
		}
		st := measure.Summarize(samples[im.name])
		st.Disturbance = disturbed[im.name]
		bi := bench.Impl{Stats: st, Value: c.value(st.Median), RelErr: -1}
		if e, ok := p.relErr[im.name]; ok {
			bi.RelErr = e
		}
		pt.Impls[im.name] = bi
	}
	return pt
}

// runRounds times every implementation once per round, in turn (two warm-up calls in the first round,
// one after), so each ratio compares samples taken under the same load. An implementation that fails
// is not timed again.
func runRounds(impls []benchImpl, per measure.Options, rounds int) (samples map[string][]time.Duration, disturbed map[string]results.Disturbance, errs map[string]error) {
	samples, disturbed, errs = map[string][]time.Duration{}, map[string]results.Disturbance{}, map[string]error{}
	for r := range rounds {
		for _, im := range impls {
			if errs[im.name] != nil {
				continue
			}
			opt := per
			opt.Warmup = 1
			if r == 0 {
				opt.Warmup = 2
			}
			s, d, err := im.run(opt)
			if err != nil {
				errs[im.name] = err
				continue
			}
			samples[im.name] = append(samples[im.name], s...)
			disturbed[im.name] = worst(disturbed[im.name], d)
		}
	}
	return samples, disturbed, errs
}

// benchCols are the report's columns, in order.
var benchCols = []string{devices.CPU, devices.CPUAsync, devices.CPUSplit, bench.JAX, bench.JAXPipelined, bench.NumPy, devices.Go}

// benchTarget is issue 11's target for a point: GoMLX's per-call time at most Max × JAX's (latency
// points), or GoMLX's throughput at least Min × the better of JAX and numpy (large points). 0: none.
func benchTarget(p bench.Point) (maxRatio, minRatio float64) {
	switch {
	case p.Workload == "matmul" && p.Params["n"] <= 8:
		return 1.2, 0
	case p.Workload == "matmul" && p.Params["n"] >= 1024:
		return 0, 0.95
	case strings.HasPrefix(p.Workload, "mlp") && p.Params["batch"] <= 32:
		return 1.2, 0
	case strings.HasPrefix(p.Workload, "mlp") && p.Params["batch"] == 256:
		return 1.1, 0
	}
	return 0, 0
}

func printBench(rep bench.Report) {
	fmt.Printf("%-44s %-9s", "workload", "metric")
	for _, c := range benchCols {
		fmt.Printf(" %-30s", benchColName(c))
	}
	fmt.Printf(" %-7s %s\n", "others", "xla:cpu vs JAX (target)")
	var notes []string
	for _, p := range rep.Points {
		fmt.Printf("%-44s %-9s", p.Label, pointMetric(p))
		for _, c := range benchCols {
			text, note := benchCell(p, c)
			fmt.Printf(" %-30s", text)
			if note != "" {
				notes = append(notes, note)
			}
		}
		thr := "    "
		if p.Throttled > 0 {
			thr = "+thr"
		}
		fmt.Printf(" %5.0f%%%s  %s\n", p.Others, thr, ratioText(p))
	}
	fmt.Println()
	fmt.Println("best: the fastest sample (a sample is ~5 ms of calls), what the machine can do when nobody interrupts;")
	fmt.Println("on a loaded machine compare the best values, on a quiet one the medians (the verdicts use medians).")
	fmt.Println("ratio: for latency, xla:cpu's time over JAX's (1.0× = as fast; lower is better); for GFLOP/s and")
	fmt.Println("GB/s, xla:cpu's throughput over the better of JAX and numpy (higher is better). Targets are issue 11's,")
	fmt.Println("for this bench only; a point where other processes used ≥ 5% of the CPUs, or the cgroup's CPU quota throttled")
	fmt.Println("it, is marked disturbed: re-run on a quiet machine (or with more CPU) before judging it. Every GoMLX point")
	fmt.Println("was first checked against float64.")
	for _, p := range rep.Points {
		if p.Throttled > 0 {
			notes = append(notes, fmt.Sprintf("%s: disturbed: %s", p.Label, p.DisturbedWhy()))
		}
	}
	for _, n := range notes {
		fmt.Println("note:", n)
	}
	for _, w := range missedWhy(rep) {
		fmt.Println("missed:", w)
	}
}

// benchColName heads an implementation's column.
func benchColName(c string) string {
	switch c {
	case devices.CPUAsync:
		return "xla:cpu async client"
	case devices.CPUSplit:
		return "xla:cpu as 4 devices (old)"
	}
	return c
}

// pointMetric is the point's metric as the table heads it: a training step's latency is "per step".
func pointMetric(p bench.Point) string {
	if strings.HasPrefix(p.Workload, "mlp") {
		return "per step"
	}
	return p.Metric
}

// fmtBenchValue writes a value in its metric: seconds per call in µs, ms or s, or a throughput.
func fmtBenchValue(metric string, v float64) string {
	if metric == bench.PerCall {
		switch {
		case v < 1e-3:
			return fmt.Sprintf("%.1f µs", v*1e6)
		case v < 1:
			return fmt.Sprintf("%.2f ms", v*1e3)
		}
		return fmt.Sprintf("%.2f s", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// benchCell is implementation c's cell of point p — median, best sample and CV, "error" or "-" — and
// the note it needs under the table (its error, or a wrong result), if any.
func benchCell(p bench.Point, c string) (text, note string) {
	v, ok := p.Impls[c]
	switch {
	case !ok:
		return "-", ""
	case v.Err != "":
		return "error", fmt.Sprintf("%s, %s: %s", p.Label, c, v.Err)
	}
	text = fmt.Sprintf("%s (best %s, CV %.0f%%)", fmtBenchValue(p.Metric, v.Value), fmtBenchValue(p.Metric, bestValue(p.Metric, v)), 100*v.Stats.CV)
	if v.RelErr > workloads.Tolerance(dtypes.Float32) {
		note = fmt.Sprintf("%s, %s: WRONG RESULT, relative error %.2g", p.Label, c, v.RelErr)
	}
	return text, note
}

// missedWhy says, for each missed target, by how much, and what the profile of this step found left
// over against JAX (docs/performance.md, "What the measurements decided"): measured differences, not guesses.
func missedWhy(rep bench.Report) []string {
	var out []string
	for _, p := range rep.Points {
		x, okx := p.Impls[devices.CPU]
		j, okj := p.Impls[bench.JAX]
		maxR, minR := benchTarget(p)
		if minR > 0 && okx && x.Err == "" {
			best, who := 0.0, ""
			for _, c := range []string{bench.JAX, bench.NumPy} {
				if v, ok := p.Impls[c]; ok && v.Err == "" && v.Value > best {
					best, who = v.Value, c
				}
			}
			if best > 0 && x.Value/best < minR {
				why := fmt.Sprintf("%s: %.2f× %s's throughput against ≥ %.2f× (%.1f vs %.1f %s)", p.Label, x.Value/best, who, minR, x.Value, best, p.Metric)
				if p.Others >= 5 {
					why += "; disturbed (others used ≥ 5% of the CPUs): re-run on a quiet machine"
				}
				out = append(out, why)
			}
			continue
		}
		if !okx || !okj || x.Err != "" || j.Err != "" || maxR == 0 || j.Value <= 0 || x.Value/j.Value <= maxR {
			continue
		}
		r := x.Value / j.Value
		why := fmt.Sprintf("%s: %.2f× JAX's time against ≤ %.1f× (%.1f µs more per call)", p.Label, r, maxR, (x.Value-j.Value)*1e6)
		if strings.HasPrefix(p.Workload, "mlp") {
			why += "; both run the same optimized HLO (22 fusions, 3 dots, same layouts), but" +
				" (1) GoMLX's builder cannot mark donated parameters as aliased to the new ones (JAX's module has" +
				" input_output_alias), so XLA allocates the 7 outputs each step and frees the 6 donated buffers, and" +
				" (2) the synchronous client runs the step on the calling thread while the pool threads spin between" +
				" its parallel pieces (xla:cpu is one device with a pool thread per core, as JAX's client; the" +
				" \"as 4 devices\" column is the plugin's default, four pool threads)"
		}
		if p.Disturbed() {
			why += "; disturbed (" + p.DisturbedWhy() + "): re-run on a quiet machine"
		}
		out = append(out, why)
	}
	return out
}

// bestValue is v's fastest sample in the point's metric (seconds per call, GFLOP/s or GB/s).
func bestValue(metric string, v bench.Impl) float64 {
	if v.Stats.Min <= 0 {
		return 0
	}
	if metric == bench.PerCall {
		return v.Stats.Min.Seconds()
	}
	return v.Value * v.Stats.Median.Seconds() / v.Stats.Min.Seconds() // throughput ∝ 1/time
}

// ratioText is the point's xla:cpu-vs-JAX ratio with its target verdict.
func ratioText(p bench.Point) string {
	x, ok := p.Impls[devices.CPU]
	if !ok || x.Err != "" {
		return ""
	}
	j, okj := p.Impls[bench.JAX]
	maxR, minR := benchTarget(p)
	verdict := func(met bool, target string) string {
		if maxR == 0 && minR == 0 {
			return ""
		}
		mark := "✗"
		if met {
			mark = "✓"
		}
		if p.Disturbed() {
			mark += " disturbed"
		}
		return fmt.Sprintf(" (%s %s)", target, mark)
	}
	if p.Metric == bench.PerCall {
		if !okj || j.Err != "" || j.Value <= 0 {
			return ""
		}
		r := x.Value / j.Value
		best := ""
		if x.Stats.Min > 0 && j.Stats.Min > 0 {
			best = fmt.Sprintf(", best %.2f×", x.Stats.Min.Seconds()/j.Stats.Min.Seconds())
		}
		return fmt.Sprintf("%.2f× JAX's time%s%s", r, best, verdict(maxR == 0 || r <= maxR, fmt.Sprintf("≤ %.1f×", maxR)))
	}
	best, who := 0.0, ""
	for _, c := range []string{bench.JAX, bench.NumPy} {
		if v, ok := p.Impls[c]; ok && v.Err == "" && v.Value > best {
			best, who = v.Value, c
		}
	}
	if best == 0 {
		return ""
	}
	r := x.Value / best
	if math.IsNaN(r) {
		return ""
	}
	return fmt.Sprintf("%.2f× %s%s", r, who, verdict(minR == 0 || r >= minR, fmt.Sprintf("≥ %.2f×", minR)))
}
