package display

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
)

// Devices shows which devices this machine has, what each one is, and the fix for missing ones.
func Devices(statuses []devices.Status) {
	var rows [][]string
	for _, s := range statuses {
		state := "available"
		if !s.Available {
			state = "not available"
		}
		detail := s.Detail
		if s.Fix != "" {
			detail += " — fix: " + s.Fix
		}
		rows = append(rows, []string{s.Name, state, detail})
	}
	Table([]string{"device", "state", "detail"}, rows)
}

// Opened shows opened devices with their model and ceilings.
func Opened(devs []*devices.Device) {
	var rows [][]string
	for _, d := range devs {
		peak := "unknown"
		if p := d.Spec.Peak("float32"); p > 0 {
			peak = fmt.Sprintf("%.1f GFLOP/s", p/1e9)
		}
		rows = append(rows, []string{d.Name, d.Model, d.PJRTVersion, peak, d.Spec.Source})
	}
	Table([]string{"device", "model", "PJRT API", "f32 peak", "where the peak comes from"}, rows)
}

// Results shows timing results as a table: device, workload, median, spread, rates.
func Results(rs []measure.Result) {
	var rows [][]string
	for _, r := range rs {
		rows = append(rows, []string{
			r.Provenance.Label(), r.Label,
			r.Stats.Median.Round(time.Microsecond).String(),
			fmt.Sprintf("%s / %s", r.Stats.Min.Round(time.Microsecond), r.Stats.P90.Round(time.Microsecond)),
			fmt.Sprintf("%.1f%%", 100*r.Stats.CV),
			fmt.Sprintf("%.1f", r.GFLOPS()),
			fmt.Sprintf("%.2f", r.BytesPerSec()/1e9),
		})
	}
	Table([]string{"device", "workload", "median", "min / p90", "CV", "GFLOP/s", "GB/s"}, rows)
}
