// Package setupcheck is the code behind notebooks/00-setup-check.ipynb: it lists the devices found
// here and times one float32 matmul on each, to prove the whole stack (plugin, GoMLX, kernel, charts)
// works before the lessons start.
package setupcheck

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// KeepName is the name results are kept under between cells.
const KeepName = "setupcheck-matmul"

// Experiments are the lesson's measurements, runnable on any device at any scale: `whygpu record`
// runs them (lessons/all lists every lesson's).
var Experiments = experiments.List{
	{
		Lesson: "00-setup-check", Name: "matmul",
		Doc: "one float32 matmul (512³ on a laptop, 8192³ on a GPU), checked against float64",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			n := experiments.Pick(s, 512, 8192)
			r, err := measure.Run(dev, workloads.Square(n, dtypes.Float32), measure.Options{Warmup: 2, Reps: 10}, n <= 2048)
			if err != nil {
				return nil, err
			}
			return []results.Result{r}, nil
		},
	},
}

// MatMulOnEachDevice times an n×n float32 matmul on every device available here (checking the
// result against a float64 reference first) and keeps the results for the chart cell.
func MatMulOnEachDevice(n int) ([]results.Result, error) {
	devs, openErr := devices.OpenAll()
	if len(devs) == 0 {
		return nil, openErr
	}
	var rs []results.Result
	for _, d := range devs {
		r, err := measure.Run(d, workloads.Square(n, dtypes.Float32), measure.Options{Warmup: 2, Reps: 5}, true)
		if err == nil && r.RelErr > workloads.Tolerance(dtypes.Float32) {
			err = fmt.Errorf("setupcheck: %s gave a wrong matmul (relative error %.2g)", d.Name, r.RelErr)
		}
		if err != nil {
			return rs, results.KeepOr(KeepName, rs, err)
		}
		rs = append(rs, r)
	}
	return rs, results.Keep(KeepName, rs)
}

// Chart draws achieved GFLOP/s per device.
func Chart(rs []results.Result) (*plot.Plot, error) {
	var bars []charts.Bar
	for _, r := range rs {
		bars = append(bars, fromresult.Bar(r, r.Provenance.Device, r.GFLOPS()))
	}
	title := "float32 matmul"
	if len(rs) > 0 {
		title = fmt.Sprintf("%d×%d float32 matmul (median of %d)", rs[0].Params["m"], rs[0].Params["n"], rs[0].Stats.N)
	}
	return charts.Bars(title, "achieved GFLOP/s", bars)
}
