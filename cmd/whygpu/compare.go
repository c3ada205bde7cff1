package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

func init() {
	register("compare", "GoMLX on a device vs PyTorch's numbers for the same shapes (scripts/torch_compare.py)", compare)
}

// torchReport is what scripts/torch_compare.py writes.
type torchReport struct {
	Torch   string `json:"torch"`
	CUDA    string `json:"cuda"`
	GPU     string `json:"gpu"`
	Date    string `json:"date"`
	Results []struct {
		Name    string  `json:"name"`
		Median  float64 `json:"median_s"`
		TFLOPS  float64 `json:"tflops"`
		GBPS    float64 `json:"gbps"`
		RelErr  float64 `json:"rel_err"`
		CV      float64 `json:"cv"`
		Shape   []int   `json:"shape"`
		Bytes   float64 `json:"bytes"`
		FLOPs   float64 `json:"flops"`
		DType   string  `json:"dtype"`
		N       int     `json:"n"`
		MinTime float64 `json:"min_s"`
	} `json:"results"`
}

func (t torchReport) find(name string) (rate float64, unit string, ok bool) {
	for _, r := range t.Results {
		if r.Name == name {
			if r.TFLOPS > 0 {
				return r.TFLOPS, "TFLOP/s", true
			}
			return r.GBPS, "GB/s", true
		}
	}
	return 0, "", false
}

// CompareRow is one shape measured by both sides.
type CompareRow struct {
	Name      string         `json:"name"` // the torch_compare.py name
	Ours      measure.Result `json:"ours"`
	OursRate  float64        `json:"ours_rate"`  // TFLOP/s or GB/s
	TorchRate float64        `json:"torch_rate"` // same unit; 0 when PyTorch did not measure it
	Unit      string         `json:"unit"`
	Ratio     float64        `json:"ratio"` // ours / torch
}

// CompareReport is what `whygpu compare` writes: both sides, the ratios and the targets.
type CompareReport struct {
	Device  string       `json:"device"`
	Model   string       `json:"model"`
	Torch   torchReport  `json:"torch"`
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

func compare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	device := fs.String("device", devices.CUDA, "device to measure (xla:cuda; xla:cpu works for a dry run)")
	torchPath := fs.String("torch", "", "JSON written by scripts/torch_compare.py on the same machine (optional)")
	out := fs.String("out", "", "write the report as JSON here")
	n := fs.Int("n", 8192, "square matmul size")
	lnRows := fs.Int("ln-rows", 8192, "layernorm rows")
	lnCols := fs.Int("ln-cols", 4096, "layernorm columns")
	copyBytes := fs.Int("copy-bytes", 1<<30, "bytes copied device to device")
	checkN := fs.Int("check-n", 2048, "matmul size at which results are checked against float64 on the host")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dev, err := devices.Open(*device)
	if err != nil {
		return err
	}
	rep := CompareReport{Device: dev.Name, Model: dev.Model, Created: time.Now().UTC()}
	if *torchPath != "" {
		b, err := os.ReadFile(*torchPath)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &rep.Torch); err != nil {
			return fmt.Errorf("compare: reading %s: %w", *torchPath, err)
		}
	}

	strict := dev
	if dev.Name == devices.CUDA {
		if strict, err = devices.Open(devices.CUDANoTF32); err != nil {
			return err
		}
	}
	opt := measure.Options{Warmup: 3, Reps: 20}
	type job struct {
		name string
		dev  *devices.Device
		w    workloads.Workload
	}
	jobs := []job{
		{"matmul-bf16", dev, workloads.Square(*n, dtypes.BFloat16)},
		{"matmul-f32-tf32", dev, workloads.Square(*n, dtypes.Float32)},
		{"matmul-f32", strict, workloads.Square(*n, dtypes.Float32)},
		{"layernorm-float32", dev, workloads.LayerNorm{Rows: *lnRows, Cols: *lnCols, Type: dtypes.Float32}},
		{"layernorm-bfloat16", dev, workloads.LayerNorm{Rows: *lnRows, Cols: *lnCols, Type: dtypes.BFloat16}},
		{"copy-d2d", dev, workloads.Copy{N: *copyBytes / 4, Type: dtypes.Float32}},
	}
	var errs []error
	for _, j := range jobs {
		fmt.Fprintf(os.Stderr, "measuring %s on %s ...\n", j.w, j.dev)
		r, err := measure.Run(j.dev, j.w, opt, false)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		row := CompareRow{Name: j.name, Ours: r}
		if r.FLOPs > 0 && j.w.Name() == "matmul" {
			row.OursRate, row.Unit = r.FLOPS()/1e12, "TFLOP/s"
		} else {
			row.OursRate, row.Unit = r.BytesPerSec()/1e9, "GB/s"
		}
		if rate, _, ok := rep.Torch.find(j.name); ok {
			row.TorchRate = rate
			if rate > 0 {
				row.Ratio = row.OursRate / rate
			}
		}
		rep.Rows = append(rep.Rows, row)
	}

	// Correctness: the same kernels at a size the host can check in float64 within seconds.
	for _, c := range []struct {
		dev *devices.Device
		dt  dtypes.DType
	}{{dev, dtypes.BFloat16}, {dev, dtypes.Float32}, {strict, dtypes.Float32}} {
		w := workloads.Square(*checkN, c.dt)
		r, err := measure.Run(c.dev, w, measure.Options{Warmup: 1, Reps: 1}, true)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		tol := workloads.ToleranceOf(c.dev, w)
		rep.Checks = append(rep.Checks, Check{
			What:  fmt.Sprintf("%s on %s: relative error vs float64", w, c.dev),
			Value: r.RelErr, Target: fmt.Sprintf("< %.0e", tol), Pass: r.RelErr < tol,
		})
	}
	rowBy := func(name string) (CompareRow, bool) {
		for _, r := range rep.Rows {
			if r.Name == name {
				return r, true
			}
		}
		return CompareRow{}, false
	}
	if r, ok := rowBy("matmul-bf16"); ok && r.TorchRate > 0 {
		rep.Checks = append(rep.Checks, Check{What: "bf16 matmul: GoMLX TFLOP/s / PyTorch TFLOP/s", Value: r.Ratio, Target: ">= 0.95", Pass: r.Ratio >= 0.95})
	}
	if cp, ok := rowBy("copy-d2d"); ok {
		for _, name := range []string{"layernorm-float32", "layernorm-bfloat16"} {
			if ln, ok := rowBy(name); ok && cp.OursRate > 0 {
				v := ln.OursRate / cp.OursRate
				rep.Checks = append(rep.Checks, Check{What: name + ": GB/s / measured copy GB/s", Value: v, Target: ">= 0.80", Pass: v >= 0.80})
			}
		}
	}

	printCompare(rep)
	if *out != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	failed := 0
	for _, c := range rep.Checks {
		if !c.Pass {
			failed++
		}
	}
	if failed > 0 {
		errs = append(errs, fmt.Errorf("compare: %d target(s) missed", failed))
	}
	return errors.Join(errs...)
}

func printCompare(rep CompareReport) {
	fmt.Printf("GoMLX on %s (%s)", rep.Device, rep.Model)
	if rep.Torch.Torch != "" {
		fmt.Printf(" vs PyTorch %s (CUDA %s) on %s, %s", rep.Torch.Torch, rep.Torch.CUDA, rep.Torch.GPU, rep.Torch.Date)
	}
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "shape\tGoMLX median\tCV\tGoMLX\tPyTorch\tratio")
	for _, r := range rep.Rows {
		torch, ratio := "-", "-"
		if r.TorchRate > 0 {
			torch, ratio = fmt.Sprintf("%.1f %s", r.TorchRate, r.Unit), fmt.Sprintf("%.2f", r.Ratio)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f%%\t%.1f %s\t%s\t%s\n", r.Ours.Label, r.Ours.Stats.Median.Round(time.Microsecond),
			100*r.Ours.Stats.CV, r.OursRate, r.Unit, torch, ratio)
	}
	tw.Flush()
	fmt.Println("targets:")
	for _, c := range rep.Checks {
		mark := "PASS"
		if !c.Pass {
			mark = "FAIL"
		}
		fmt.Printf("  %s  %s = %.3g (target %s)\n", mark, c.What, c.Value, c.Target)
	}
}
