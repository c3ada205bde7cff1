package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
)

// peerClock is how GoMLX's side is timed (measure.Run: the wall clock until the device has finished,
// go-xla's execute waits), and how a peer must time its median to be compared with it.
const peerClock = "wall, to completion (synchronized)"

// peerReport is what scripts/torch_compare.py (PyTorch) and scripts/bench_jax.py --compare (JAX) write.
type peerReport struct {
	Torch    string       `json:"torch,omitempty"`
	CUDA     string       `json:"cuda,omitempty"`
	JAX      string       `json:"jax,omitempty"`
	JAXLib   string       `json:"jaxlib,omitempty"`
	Platform string       `json:"platform,omitempty"`
	GPU      string       `json:"gpu"`
	Date     string       `json:"date"`
	Results  []peerResult `json:"results"`
}

// peerResult is one shape measured by a peer; Error is set instead when the peer could not run it.
type peerResult struct {
	Name      string  `json:"name"`
	Error     string  `json:"error,omitempty"`
	Median    float64 `json:"median_s"`
	TFLOPS    float64 `json:"tflops"`
	GBPS      float64 `json:"gbps"`
	StepsPerS float64 `json:"steps_per_s"`
	RelErr    float64 `json:"rel_err"`
	CV        float64 `json:"cv"`
	Shape     []int   `json:"shape"`
	Bytes     float64 `json:"bytes"`
	FLOPs     float64 `json:"flops"`
	DType     string  `json:"dtype"`
	N         int     `json:"n"`
	MinTime   float64 `json:"min_s"`
	// Clock is how Median was timed ("wall, to completion (synchronized)"); DeviceMedian is the
	// same runs on the device's own clock (CUDA events), when the peer has one.
	Clock        string  `json:"clock,omitempty"`
	DeviceMedian float64 `json:"device_median_s,omitempty"`
}

// find returns the peer's rate for name in the row's unit (TFLOP/s, GB/s or steps/s).
func (t peerReport) find(name string) (rate float64, ok bool) {
	for _, r := range t.Results {
		if r.Name == name && r.Error == "" {
			switch {
			case r.TFLOPS > 0:
				return r.TFLOPS, true
			case r.GBPS > 0:
				return r.GBPS, true
			}
			return r.StepsPerS, true
		}
	}
	return 0, false
}

func (t peerReport) label() string {
	switch {
	case t.Torch != "":
		return fmt.Sprintf("PyTorch %s (CUDA %s) on %s, %s", t.Torch, t.CUDA, t.GPU, t.Date)
	case t.JAX != "":
		return fmt.Sprintf("JAX %s (jaxlib %s, %s) on %s, %s", t.JAX, t.JAXLib, t.Platform, t.GPU, t.Date)
	}
	return ""
}

func readPeer(path string) (peerReport, error) {
	var p peerReport
	if path == "" {
		return p, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return p, fmt.Errorf("compare: reading %s: %w", path, err)
	}
	return p, nil
}

// CompareRow is one shape measured by GoMLX and, where they ran, by PyTorch and JAX.
type CompareRow struct {
	Name      string         `json:"name"` // the torch_compare.py / bench_jax.py name
	Ours      results.Result `json:"ours"`
	OursRate  float64        `json:"ours_rate"`  // TFLOP/s, GB/s or (MLP step) steps/s
	TorchRate float64        `json:"torch_rate"` // same unit; 0 when PyTorch did not measure it
	Unit      string         `json:"unit"`
	Ratio     float64        `json:"ratio"`     // ours / torch (rates: higher is better)
	JAXRate   float64        `json:"jax_rate"`  // same unit; 0 when JAX did not measure it
	JAXRatio  float64        `json:"jax_ratio"` // ours / JAX
}

// CompareReport is what `whygpu compare` writes: every side, the ratios and the targets.
type CompareReport struct {
	Device  string       `json:"device"`
	Model   string       `json:"model"`
	Torch   peerReport   `json:"torch"`
	JAX     peerReport   `json:"jax"`
	Rows    []CompareRow `json:"rows"`
	Checks  []Check      `json:"checks"`
	Created time.Time    `json:"created"`
}

// Check is one target with its outcome.
type Check struct {
	What   string  `json:"what"`
	Value  float64 `json:"value"`
	Target string  `json:"target"`
	Pass   bool    `json:"pass"`
}

// compareFlags are compare's command line.
type compareFlags struct {
	device, torch, jax, out             string
	batches                             []int
	n, lnRows, lnCols, copyBytes, check int
	allowMissing                        bool
}

func parseCompareFlags(args []string) (compareFlags, error) {
	var f compareFlags
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.StringVar(&f.device, "device", devices.CUDA, "device to measure (xla:cuda; xla:cpu works for a dry run)")
	fs.StringVar(&f.torch, "torch", "", "JSON written by scripts/torch_compare.py on the same machine (optional)")
	fs.StringVar(&f.jax, "jax", "", "JSON written by scripts/bench_jax.py --compare on the same machine (optional)")
	batchFlag := fs.String("batches", "1,256,4096", "MLP training-step batches (64→64→64→10, tanh, MSE, SGD; waited each step)")
	fs.StringVar(&f.out, "out", "", "write the report as JSON here")
	fs.IntVar(&f.n, "n", 8192, "square matmul size")
	fs.IntVar(&f.lnRows, "ln-rows", 8192, "layernorm rows")
	fs.IntVar(&f.lnCols, "ln-cols", 4096, "layernorm columns")
	fs.IntVar(&f.copyBytes, "copy-bytes", 1<<30, "bytes copied device to device")
	fs.IntVar(&f.check, "check-n", 2048, "matmul size at which results are checked against float64 on the host")
	fs.BoolVar(&f.allowMissing, "allow-missing-peer", false, "exit 0 even when a peer (PyTorch, JAX) has no number for a target's row")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	var err error
	f.batches, err = positiveInts("compare", "-batches", *batchFlag)
	return f, err
}

// compare measures GoMLX on the shapes the peers measured, reads the peers' reports, checks results
// against float64 and the targets against the peers, prints and writes the report, and fails on a
// missed target or a target without its peer's number.
func compare(args []string) error {
	f, err := parseCompareFlags(args)
	if err != nil {
		return err
	}
	dev, err := devices.Open(f.device)
	if err != nil {
		return err
	}
	rep := CompareReport{Device: dev.Name, Model: dev.Model, Created: time.Now().UTC()}
	if rep.Torch, err = readPeer(f.torch); err != nil {
		return err
	}
	if rep.JAX, err = readPeer(f.jax); err != nil {
		return err
	}
	strict, err := strictDevice(dev)
	if err != nil {
		return err
	}
	var errs []error
	rep.Rows, errs = measureCompareJobs(compareJobs(dev, strict, f), rep)
	checks, checkErrs := correctnessChecks(dev, strict, f.check)
	errs = append(errs, checkErrs...)
	rep.Checks = append(checks, rep.targetChecks(f.batches)...)
	missing := missingPeers(rep, f.batches)

	printCompare(rep)
	for _, m := range missing {
		fmt.Println("  MISSING  " + m)
	}
	if f.out != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(f.out, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return errors.Join(append(errs, compareOutcome(rep, missing, f.allowMissing)...)...)
}

// strictDevice is dev with TF32 off on CUDA (the same GPU, for the float32 matmul PyTorch runs
// without TF32), dev itself elsewhere.
func strictDevice(dev *devices.Device) (*devices.Device, error) {
	if dev.Name == devices.CUDA {
		return devices.Open(devices.CUDANoTF32)
	}
	return dev, nil
}

// compareJob is one shape GoMLX measures, under the name the peers' reports give it.
type compareJob struct {
	name string
	dev  *devices.Device
	w    workloads.Workload
}

// compareJobs are the peers' shapes: the square matmul (bf16, f32 in TF32, f32 strict), layernorm
// in f32 and bf16, a device copy, and the MLP training step at each batch.
func compareJobs(dev, strict *devices.Device, f compareFlags) []compareJob {
	jobs := []compareJob{
		{"matmul-bf16", dev, workloads.Square(f.n, dtypes.BFloat16)},
		{"matmul-f32-tf32", dev, workloads.Square(f.n, dtypes.Float32)},
		{"matmul-f32", strict, workloads.Square(f.n, dtypes.Float32)},
		{"layernorm-float32", dev, membound.LayerNorm{Rows: f.lnRows, Cols: f.lnCols, Type: dtypes.Float32}},
		{"layernorm-bfloat16", dev, membound.LayerNorm{Rows: f.lnRows, Cols: f.lnCols, Type: dtypes.BFloat16}},
		{"copy-d2d", dev, membound.Copy{N: f.copyBytes / 4, Type: dtypes.Float32}},
	}
	for _, b := range f.batches {
		jobs = append(jobs, compareJob{fmt.Sprintf("mlp-step-b%d", b), dev, benchMLP(b)})
	}
	return jobs
}

// measureCompareJobs times every job (a training step in samples of several waited steps: it is
// tens of µs at batch 1 on a GPU) and puts each beside the peers' rates; a job that fails is an
// error and no row.
func measureCompareJobs(jobs []compareJob, rep CompareReport) ([]CompareRow, []error) {
	opt := measure.Options{Warmup: 3, Reps: 20}
	stepOpt := measure.Options{Warmup: 3, Reps: 20, SampleTime: 5 * time.Millisecond}
	var rows []CompareRow
	var errs []error
	for _, j := range jobs {
		t0 := time.Now()
		fmt.Fprintf(os.Stderr, "measuring %s on %s ...", j.w, j.dev)
		o := opt
		if _, ok := j.w.(workloads.MLP); ok {
			o = stepOpt
		}
		r, err := measure.Run(j.dev, j.w, o, false)
		fmt.Fprintf(os.Stderr, " %s\n", time.Since(t0).Round(100*time.Millisecond))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rows = append(rows, rep.row(j, r))
	}
	return rows, errs
}

// row is job j's result in its unit (TFLOP/s for a matmul, steps/s for a training step, GB/s
// otherwise) with the peers' rates and the ratios to them, where they measured it.
func (rep CompareReport) row(j compareJob, r results.Result) CompareRow {
	row := CompareRow{Name: j.name, Ours: r}
	switch {
	case j.w.Name() == "matmul":
		row.OursRate, row.Unit = r.FLOPS()/1e12, "TFLOP/s"
	case r.Seconds() > 0 && strings.HasPrefix(j.name, "mlp-step"):
		row.OursRate, row.Unit = 1/r.Seconds(), "steps/s"
	default:
		row.OursRate, row.Unit = r.BytesPerSec()/1e9, "GB/s"
	}
	if rate, ok := rep.Torch.find(j.name); ok && rate > 0 {
		row.TorchRate, row.Ratio = rate, row.OursRate/rate
	}
	if rate, ok := rep.JAX.find(j.name); ok && rate > 0 {
		row.JAXRate, row.JAXRatio = rate, row.OursRate/rate
	}
	return row
}

// correctnessChecks runs the same matmul kernels (bf16, f32, f32 strict) at a size the host checks
// in float64 within seconds: one Check each, against the dtype's tolerance on that device.
func correctnessChecks(dev, strict *devices.Device, n int) ([]Check, []error) {
	var checks []Check
	var errs []error
	for _, c := range []struct {
		dev *devices.Device
		dt  dtypes.DType
	}{{dev, dtypes.BFloat16}, {dev, dtypes.Float32}, {strict, dtypes.Float32}} {
		w := workloads.Square(n, c.dt)
		r, err := measure.Run(c.dev, w, measure.Options{Warmup: 1, Reps: 1}, true)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		tol := workloads.ToleranceOf(c.dev, w)
		checks = append(checks, Check{
			What:  fmt.Sprintf("%s on %s: relative error vs float64", w, c.dev),
			Value: r.RelErr, Target: fmt.Sprintf("< %.0e", tol), Pass: r.RelErr < tol,
		})
	}
	return checks, errs
}

// rowNamed is the report's row of that name.
func (rep CompareReport) rowNamed(name string) (CompareRow, bool) {
	for _, r := range rep.Rows {
		if r.Name == name {
			return r, true
		}
	}
	return CompareRow{}, false
}

// targetChecks are the targets against the peers, where both sides have a number: the bf16 matmul
// at ≥ 95% of PyTorch's rate, layernorm at ≥ 80% of the measured copy bandwidth, and each MLP step in
// ≤ 1.2× JAX's time.
func (rep CompareReport) targetChecks(batches []int) []Check {
	var checks []Check
	if r, ok := rep.rowNamed("matmul-bf16"); ok && r.TorchRate > 0 {
		checks = append(checks, Check{What: "bf16 matmul: GoMLX TFLOP/s / PyTorch TFLOP/s", Value: r.Ratio, Target: ">= 0.95", Pass: r.Ratio >= 0.95})
	}
	if cp, ok := rep.rowNamed("copy-d2d"); ok {
		for _, name := range []string{"layernorm-float32", "layernorm-bfloat16"} {
			if ln, ok := rep.rowNamed(name); ok && cp.OursRate > 0 {
				v := ln.OursRate / cp.OursRate
				checks = append(checks, Check{What: name + ": GB/s / measured copy GB/s", Value: v, Target: ">= 0.80", Pass: v >= 0.80})
			}
		}
	}
	for _, b := range batches {
		if r, ok := rep.rowNamed(fmt.Sprintf("mlp-step-b%d", b)); ok && r.JAXRate > 0 {
			v := 1 / r.JAXRatio // GoMLX step time / JAX step time
			checks = append(checks, Check{What: fmt.Sprintf("MLP step, batch %d: GoMLX time / JAX time (waited each step)", b),
				Value: v, Target: "<= 1.2", Pass: v <= 1.2})
		}
	}
	return checks
}

// compareOutcome is what makes compare fail: a missed target, or (unless allowMissing) a target
// whose peer has no number.
func compareOutcome(rep CompareReport, missing []string, allowMissing bool) []error {
	var errs []error
	failed := 0
	for _, c := range rep.Checks {
		if !c.Pass {
			failed++
		}
	}
	if failed > 0 {
		errs = append(errs, fmt.Errorf("compare: %d target(s) missed", failed))
	}
	if len(missing) > 0 && !allowMissing {
		errs = append(errs, fmt.Errorf("compare: %d target(s) have no peer number (%s): run the peer, or pass -allow-missing-peer", len(missing), strings.Join(missing, "; ")))
	}
	return errs
}

// missingPeers lists the targets a peer's number is missing for: the bf16 matmul against PyTorch,
// each MLP step against JAX — the peer not run at all, or its report lacking the row or having an
// error there. A target without its peer is not evaluated, so it must not pass in silence.
func missingPeers(rep CompareReport, batches []int) []string {
	var out []string
	need := func(p peerReport, who, name string) {
		switch {
		case p.label() == "":
			out = append(out, fmt.Sprintf("%s: no %s report (-%s)", name, who, strings.ToLower(strings.TrimPrefix(who, "Py"))))
		default:
			if _, ok := p.find(name); !ok {
				why := "no row"
				for _, r := range p.Results {
					if r.Name == name && r.Error != "" {
						why = "error: " + r.Error
					}
				}
				out = append(out, fmt.Sprintf("%s: %s has no number (%s)", name, who, why))
			}
		}
	}
	need(rep.Torch, "PyTorch", "matmul-bf16")
	for _, b := range batches {
		need(rep.JAX, "JAX", fmt.Sprintf("mlp-step-b%d", b))
	}
	return out
}

func printCompare(rep CompareReport) {
	fmt.Printf("GoMLX on %s (%s)\n", rep.Device, rep.Model)
	for _, p := range []peerReport{rep.Torch, rep.JAX} {
		if l := p.label(); l != "" {
			fmt.Printf("  vs %s\n", l)
		}
	}
	if rep.Torch.label() == "" {
		fmt.Println("  MISSING  no PyTorch numbers: PyTorch was not run or not found (-torch)")
	}
	if rep.JAX.label() == "" {
		fmt.Println("  MISSING  no JAX numbers: JAX was not run or not found (-jax)")
	}
	for _, p := range []peerReport{rep.Torch, rep.JAX} {
		for _, r := range p.Results {
			if r.Clock != "" && r.Clock != peerClock {
				fmt.Printf("  NOT LIKE FOR LIKE  %s: %s %s timed on %q, GoMLX on %q\n", r.Name, p.label(), r.Name, r.Clock, peerClock)
			}
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tshape\tGoMLX median\tCV\tGoMLX\tPyTorch\tratio\tJAX\tratio")
	peer := func(rate, ratio float64, unit string) (string, string) {
		if rate <= 0 {
			return "-", "-"
		}
		return fmt.Sprintf("%.4g %s", rate, unit), fmt.Sprintf("%.2f", ratio)
	}
	for _, r := range rep.Rows {
		torch, tratio := peer(r.TorchRate, r.Ratio, r.Unit)
		jax, jratio := peer(r.JAXRate, r.JAXRatio, r.Unit)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f%%\t%.4g %s\t%s\t%s\t%s\t%s\n", r.Name, r.Ours.Label, r.Ours.Stats.Median.Round(time.Microsecond/10),
			100*r.Ours.Stats.CV, r.OursRate, r.Unit, torch, tratio, jax, jratio)
	}
	tw.Flush()
	fmt.Println("ratios are GoMLX / peer of the rates (higher is better for GoMLX)")
	fmt.Println("targets:")
	for _, c := range rep.Checks {
		mark := "PASS"
		if !c.Pass {
			mark = "FAIL"
		}
		fmt.Printf("  %s  %s = %.3g (target %s)\n", mark, c.What, c.Value, c.Target)
	}
}
