package all

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/lessons/batching"
	"github.com/gpu-course/whygpu/lessons/bigpicture"
	"github.com/gpu-course/whygpu/lessons/datamovement"
	"github.com/gpu-course/whygpu/lessons/race"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
)

// cpuResult is a fake live xla:cpu step result at a size.
func cpuResult(batch, hidden int, d time.Duration) results.Result {
	return results.Result{Label: "step", Params: map[string]int{"batch": batch, "hidden": hidden},
		Stats: results.Stats{Median: d}, Provenance: results.Provenance{Device: devices.CPU, Run: results.RunID()}}
}

func rows(t units.Table) string { return t.Plain() }

// withBadges is a table as a learner reads it: its origin badges (whose fold holds a model's
// assumptions) above its rows.
func withBadges(t units.Table) string {
	var b strings.Builder
	for _, o := range t.Origins {
		b.WriteString(o.Label() + " (" + o.Note + ")\n")
	}
	return b.String() + t.String()
}

func legends(ss []charts.Series) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.Legend() + "\n")
	}
	return b.String()
}

// Every table, chart legend and lane that shows a modeled GPU number says it is a model and carries
// the model's assumptions (gpumodel.CheckLabeled).
func TestModeledGPUNumbersAreLabeled(t *testing.T) {
	var sweep []results.Result
	for _, b := range race.Batches {
		sweep = append(sweep, cpuResult(b, batching.Narrow, time.Duration(20+b)*time.Microsecond))
	}
	lane := stepcharts.BandLane(gpumodel.StepEstimate(experiments.CourseMLP(1, 64)))
	for name, text := range map[string]string{
		"race lane":                   lane.Device + " " + lane.TimeText() + " " + lane.Describe(),
		"race.ModelTable":             race.ModelTable(1, 64).String(),
		"race.FLOPTable":              race.FLOPTable().String(),
		"stepcharts.TimeSeries":       legends(stepcharts.TimeSeries(sweep, experiments.Batch)),
		"stepcharts.ThroughputSeries": legends(stepcharts.ThroughputSeries(sweep, experiments.Batch)),
		"batching.Occupancy":          batching.OccupancyTable(sweep, batching.Narrow).String(),
		"batching.PeakShare":          withBadges(batching.PeakShareTable(sweep)),
		"datamovement.GPUModel":       rows(datamovement.GPUModelRows(datamovement.ResidentModel("laptop"))),
		"datamovement.Transfer":       withBadges(datamovement.SourceTransferTable()),
		"bigpicture.ModelRates":       withBadges(bigpicture.EstimateTable(bigpicture.SourceRun, bigpicture.ModelRates())),
	} {
		if err := gpumodel.CheckLabeled(text); err != nil {
			t.Errorf("%s: %v\n%s", name, err, text)
		}
		if !strings.Contains(text, "model") {
			t.Errorf("%s shows no model at all; the check above proves nothing:\n%s", name, text)
		}
	}
	// Lines printed beside a chart or a race (whose badges hold the assumptions, issue 35: the
	// assumptions were printed three times under one chart) name the model, say it is not a
	// measurement and point to the badge, without repeating the assumptions.
	for name, text := range map[string]string{
		"stepcharts.CrossoverLine": stepcharts.CrossoverLine(stepcharts.TimeSeries(sweep, experiments.Batch), "batch"),
		"race lane, brief":         lane.Device + " " + lane.TimeText() + " " + lane.Brief(),
		"RaceSummary with model":   charts.RaceSummary([]charts.Lane{{Device: devices.CPU, Time: 30 * time.Microsecond}, lane}),
	} {
		if !strings.Contains(text, "model") || !strings.Contains(text, "not a measurement") || !strings.Contains(text, "behind the badge") {
			t.Errorf("%s: a model's line must name the model, say it is not a measurement and point to the badge:\n%s", name, text)
		}
		if gpumodel.CheckLabeled(text) == nil {
			t.Errorf("%s repeats the model's assumptions, which its badge holds:\n%s", name, text)
		}
	}
	if lane.Source != charts.Model || !lane.Banded() {
		t.Errorf("the model lane must be a band drawn as a model: %+v", lane)
	}
	for _, s := range stepcharts.TimeSeries(sweep, experiments.Batch) {
		if s.Source == charts.Model && !s.Banded() {
			t.Errorf("model series %q is a line, not a band", s.Name)
		}
	}
}

// The checker itself: an unlabeled model number fails.
func TestCheckLabeledCatchesUnlabeled(t *testing.T) {
	for _, bad := range []string{
		"H200 (model) | 72 µs",
		"H200 (model) | 23 µs – 92 µs (not a measurement)",
	} {
		if gpumodel.CheckLabeled(bad) == nil {
			t.Errorf("CheckLabeled(%q) = nil, want an error", bad)
		}
	}
	if gpumodel.CheckLabeled("xla:cpu | 40 µs") != nil {
		t.Error("text without a model must pass")
	}
}

// A training step is modeled with its counted kernels: only gpumodel.StepWork and GPTStepWork
// build a step's Work (gpumodel.MLPStep, gpumodel.GPTStep), so no lesson can model an MLP or a GPT
// step on a hand count of kernels.
func TestStepsAreModeledWithCountedKernels(t *testing.T) {
	root := filepath.Join("..", "..")
	direct := regexp.MustCompile(`gpumodel\.(MLP|GPT)Step\(`)
	for _, dir := range []string{"lessons", "pkg", "cmd"} {
		filepath.Walk(filepath.Join(root, dir), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") ||
				strings.Contains(p, filepath.Join("pkg", "model", "gpumodel")) || strings.HasSuffix(p, filepath.Join("pkg", "experiments", "kernels.go")) {
				return nil
			}
			b, err := os.ReadFile(p)
			if err == nil && direct.Match(b) {
				t.Errorf("%s builds a step's GPU work itself (gpumodel.MLPStep or GPTStep): use gpumodel.StepEstimate / StepWork or GPTStepEstimate / GPTStepWork, which count the kernels on xla:cpu", p)
			}
			return nil
		})
	}
}

// No place but pkg/model/gpumodel computes GPU time: no FLOPs ÷ a peak, bytes ÷ a bandwidth, or launch
// constants in lesson or package code (ratios of two peaks or bandwidths are fine).
func TestOnlyGPUModelComputesGPUTime(t *testing.T) {
	root := filepath.Join("..", "..")
	timeOf := regexp.MustCompile(`(FLOPs\(\)|flops|train|fwd|bytes|b)\s*/\s*\(?[^/]*(Peak\(|BandwidthBytes|Bandwidth\(\))|LaunchCost|KernelsPerStep`)
	for _, dir := range []string{"lessons", "pkg", "cmd"} {
		filepath.Walk(filepath.Join(root, dir), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") ||
				strings.Contains(p, filepath.Join("pkg", "model", "gpumodel")) {
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return nil
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			for n := 1; sc.Scan(); n++ {
				if line := sc.Text(); timeOf.MatchString(line) && !strings.HasPrefix(strings.TrimSpace(line), "//") {
					t.Errorf("%s:%d computes GPU time outside pkg/model/gpumodel: %s", p, n, strings.TrimSpace(line))
				}
			}
			return nil
		})
	}
}
