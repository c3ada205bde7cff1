package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// testExperiments are fake experiments, in this test binary only (TestMain adds them to
// fakeExperiments).
var testExperiments = experiments.List{
	{
		Lesson: "99-fake", Name: "tiny-matmul", Doc: "a 64×64 float32 matmul (test only)",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			n := experiments.Pick(s, 32, 64)
			r, err := measure.Run(dev, workloads.Square(n, dtypes.Float32), measure.Options{Warmup: 1, Reps: 3}, true)
			return []results.Result{r}, err
		},
	},
	{
		Lesson: "99-fake", Name: "broken", Doc: "always fails (test only)",
		Run: func(*devices.Device, experiments.Scale) ([]results.Result, error) {
			return nil, errors.New("out of memory, pretend")
		},
	},
	{
		Lesson: "99-fake", Name: "panics", Doc: "panics (test only)",
		Run: func(*devices.Device, experiments.Scale) ([]results.Result, error) { panic("boom") },
	},
	{
		Lesson: "96-fake", Name: "not-here", Doc: "cannot run on any device (test only)",
		Run: func(dev *devices.Device, _ experiments.Scale) ([]results.Result, error) {
			return nil, fmt.Errorf("%w: %s has one device", experiments.ErrNotApplicable, dev.Name)
		},
	},
}

func TestMain(m *testing.M) {
	fakeExperiments = append(fakeExperiments, testExperiments...)
	os.Exit(m.Run())
}

func TestRecordSkipsWhatTheDeviceCannotRun(t *testing.T) {
	needCPUPlugin(t)
	out := t.TempDir()
	if err := record([]string{"-device", "xla:cpu", "-out", out, "-only", "96-fake"}); err != nil {
		t.Fatalf("a not-applicable experiment must be skipped, not failed: %v", err)
	}
	dev, _ := devices.Open("xla:cpu")
	b, _ := os.ReadFile(filepath.Join(out, experiments.Slug(dev.Model), "record.json"))
	if !strings.Contains(string(b), `"skipped"`) || !strings.Contains(string(b), "has one device") {
		t.Errorf("manifest does not record the skip and its reason:\n%s", b)
	}
}

func needCPUPlugin(t *testing.T) {
	t.Helper()
	devicetest.NeedCPUPlugin(t)
}

func TestRecordOnCPU(t *testing.T) {
	needCPUPlugin(t)
	out := t.TempDir()
	if err := record([]string{"-device", "xla:cpu", "-scale", "gpu", "-out", out, "-only", "99-fake/tiny-matmul"}); err != nil {
		t.Fatal(err)
	}
	dev, err := devices.Open("xla:cpu")
	if err != nil {
		t.Fatal(err)
	}
	devDir := filepath.Join(out, experiments.Slug(dev.Model))
	rs, err := results.Load(filepath.Join(devDir, "99-fake", "tiny-matmul.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("got %d results, want 1", len(rs))
	}
	p := rs[0].Provenance
	if p.Device != "xla:cpu" || p.Model != dev.Model || p.Date.IsZero() || p.GoMLX == "" || p.Go == "" || p.PJRTVersion == "" {
		t.Errorf("provenance incomplete: %+v", p)
	}
	if rs[0].Params["n"] != 64 {
		t.Errorf("-scale gpu should pick the gpu size 64, got params %v", rs[0].Params)
	}
	if svg, err := os.ReadFile(filepath.Join(devDir, "99-fake", "tiny-matmul.svg")); err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("no SVG chart: %v", err)
	}
	var man Manifest
	b, err := os.ReadFile(filepath.Join(devDir, "record.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if man.Device != "xla:cpu" || man.Scale != "gpu" || len(man.Experiments) != 1 || man.Experiments[0].File != filepath.Join("99-fake", "tiny-matmul.json") {
		t.Errorf("manifest: %+v", man)
	}
}

func TestRecordReportsFailuresAndGoesOn(t *testing.T) {
	needCPUPlugin(t)
	out := t.TempDir()
	err := record([]string{"-device", "xla:cpu", "-out", out, "-only", "99-fake"})
	if err == nil || !strings.Contains(err.Error(), "2 of 3 experiment(s) failed") {
		t.Fatalf("want 2 of 3 failed, got %v", err)
	}
	dev, _ := devices.Open("xla:cpu")
	devDir := filepath.Join(out, experiments.Slug(dev.Model))
	if _, err := os.Stat(filepath.Join(devDir, "99-fake", "tiny-matmul.json")); err != nil {
		t.Errorf("the good experiment should still be saved: %v", err)
	}
	b, _ := os.ReadFile(filepath.Join(devDir, "record.json"))
	for _, want := range []string{"out of memory, pretend", "panic: boom"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("manifest does not record %q:\n%s", want, b)
		}
	}
}

func TestRecordFlags(t *testing.T) {
	if err := record([]string{"-only", "nope/nothing", "-list"}); err == nil || !strings.Contains(err.Error(), `no experiment or lesson "nope/nothing"`) {
		t.Errorf("unknown -only: %v", err)
	}
	if err := record([]string{"-device", "xla:cpu", "-scale", "huge", "-out", t.TempDir(), "-only", "99-fake/broken"}); err == nil {
		t.Error("bad -scale accepted")
	}
	if err := record([]string{"-device", "tpu", "-out", t.TempDir(), "-only", "99-fake/broken"}); err == nil || !strings.Contains(err.Error(), "unknown device") {
		t.Errorf("unknown device: %v", err)
	}
	// Outside a checkout, -out is required.
	t.Setenv("WHYGPU_ROOT", t.TempDir())
	if err := record([]string{"-only", "99-fake/broken"}); err == nil || !strings.Contains(err.Error(), "-out") {
		t.Errorf("no checkout and no -out: %v", err)
	}
}
