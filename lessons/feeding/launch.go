package feeding

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads/launch"
)

// Launch-bound tiny models: per-call overhead, and what fusing a step into one executable saves.

// LaunchPass is the launch-bound experiment's forward pass (launch.TiedForward): DefaultTiny's
// layers, width and batch, as one executable per op or one fused executable.
func LaunchPass(fused bool) launch.TiedForward { return DefaultTiny.pass(fused) }

// LaunchBound times the forward pass of the tiny MLP t (weights tied; DefaultTiny is the lesson's) two ways on
// dev: as one executable per operation (matmul, bias add, tanh: what an eager framework launches, one
// kernel each) and as one compiled executable for the whole pass (what XLA does: it fuses the step),
// each checked against float64. Each result's median is the time of one forward pass; Params carry
// the number of executable calls (ParamCalls).
func LaunchBound(dev *devices.Device, t Tiny) (rs []results.Result, err error) {
	opt := measure.Options{Warmup: 3, Reps: 7, SampleTime: 20 * time.Millisecond}
	for _, fused := range []bool{false, true} {
		w := t.pass(fused)
		r, err := measure.Run(dev, w, opt, true)
		if err != nil {
			return rs, fmt.Errorf("launch-bound experiment on %s: %w", dev.Name, err)
		}
		if r.RelErr > r.Tolerance {
			return rs, fmt.Errorf("%s: %s is wrong (relative error %.2g)", Lesson, w, r.RelErr)
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// LaunchHere runs LaunchBound of the cell's pass on every XLA device here, adds recorded results for
// devices this machine lacks (at the pass they were recorded with), and keeps them. A pass Validate
// refuses is refused before anything is compiled.
func LaunchHere(t Tiny) ([]results.Result, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return experiments.OnEachDevice(Lesson, "launch-bound", KeepLaunch, func(d *devices.Device) ([]results.Result, error) {
		return LaunchBound(d, t)
	})
}

// LaunchTable formats LaunchBound results: calls, time per pass and per call, and how much of the
// time the arithmetic itself would take at ceiling FLOP/s (when given, >0).
func LaunchTable(rs []results.Result, ceiling float64) units.Table {
	var rows [][]string
	var disturbed []string
	for _, r := range rs {
		calls := max(1, r.Params[ParamCalls])
		math := "—"
		if ceiling > 0 && !r.Provenance.Recorded {
			math = fmt.Sprintf("%.2f%%", 100*r.FLOPs/ceiling/r.Seconds())
		}
		rows = append(rows, []string{r.Provenance.Label(), r.Label, strconv.Itoa(calls), units.Duration(r.Seconds()),
			units.Duration(r.Seconds() / float64(calls)), units.Plain(r.FLOPs), math})
		disturbed = append(disturbed, results.WhyDisturbed(r))
	}
	return units.Table{Origins: results.Origins(rs), Header: []string{"device", "forward pass", "executable calls", "time per pass (median)", "per call", "FLOPs", "arithmetic share at the measured matmul ceiling"},
		Rows: rows, Disturbed: disturbed}
}
