package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/panics"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"

	"github.com/gpu-course/whygpu/lessons/all"
)

// Manifest is written next to the reference results of one device: what was recorded, how, and
// what failed. <out>/<device-slug>/record.json
type Manifest struct {
	Device      string            `json:"device"`
	Model       string            `json:"model"`
	Scale       string            `json:"scale"`
	Plugin      string            `json:"plugin,omitempty"`
	PJRTVersion string            `json:"pjrt_version,omitempty"`
	Host        string            `json:"host"`
	Command     string            `json:"command"`
	Build       map[string]string `json:"build"` // Go and module versions of the whygpu binary
	Updated     time.Time         `json:"updated"`
	Experiments []ManifestEntry   `json:"experiments"`
}

// ManifestEntry is one experiment's outcome in a recording run.
type ManifestEntry struct {
	ID       string    `json:"id"`
	Doc      string    `json:"doc,omitempty"`
	File     string    `json:"file,omitempty"`  // JSON results, relative to the device's directory
	Chart    string    `json:"chart,omitempty"` // SVG chart, relative to the device's directory
	Results  int       `json:"results"`
	Seconds  float64   `json:"seconds"`
	Variant  string    `json:"variant,omitempty"` // a reduced run (the plan's variant), replaced by a later full one
	Error    string    `json:"error,omitempty"`
	Skipped  string    `json:"skipped,omitempty"` // why the device cannot run it (experiments.ErrNotApplicable)
	Recorded time.Time `json:"recorded"`
}

// recordFlags are record's command line.
type recordFlags struct {
	device, scale, out, only, importFile string
	list, noCharts, plan                 bool
	group                                int
	budget                               time.Duration
}

// parseRecordFlags reads record's flags; help is true when -h was asked for (the usage is printed).
func parseRecordFlags(args []string) (f recordFlags, help bool, err error) {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.StringVar(&f.device, "device", devices.CPU, "device to record on: "+strings.Join(devices.Names, ", "))
	fs.StringVar(&f.scale, "scale", "", "experiment sizes: gpu or laptop (default: gpu on a GPU device, laptop otherwise)")
	fs.StringVar(&f.out, "out", "", "reference directory to write <device-slug>/<lesson>/<name>.json under (default: <checkout>/lessons/reference)")
	fs.StringVar(&f.only, "only", "", "comma-separated experiment ids (lesson/name) or lesson ids to run (default: all)")
	fs.BoolVar(&f.list, "list", false, "list the experiments and exit")
	fs.BoolVar(&f.noCharts, "no-charts", false, "do not write an SVG chart next to each JSON file")
	fs.IntVar(&f.group, "group", 0, "run the recording plan's group N (1: what replaces modeled numbers first, 2 and 3: the rest; see -plan), in its order")
	fs.BoolVar(&f.plan, "plan", false, "print the recording plan (each experiment's compile count and estimated time, by group) and exit")
	fs.DurationVar(&f.budget, "budget", 0, "start no experiment whose planned estimate no longer fits in this much time (0: no limit); those are listed for a later -only run")
	fs.StringVar(&f.importFile, "import", "", "unpack a gpu-record.sh archive (recording.tar.gz) into lessons/reference/<gpu>/ and check it")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: whygpu record [-device xla:cuda] [-scale gpu] [-out dir] [-only lesson/name,...|-group N] [-budget 5m] [-list|-plan]
       whygpu record -import recording.tar.gz

Runs every lesson's experiments (the list in lessons/all) on one device and writes its results with provenance (device, model, driver, PJRT, GoMLX and Go
versions, date) to <out>/<device-slug>/<lesson>/<name>.json, a chart next to it, and a manifest
<out>/<device-slug>/record.json. Lessons show these results, labeled as recorded, where the device
is absent. The binary needs no Go and no checkout: only the PJRT plugin (PJRT_PLUGIN_LIBRARY_PATH)
and, outside a checkout, -out. -plan prints the groups scripts/gpu-record.sh records in one GPU
lease; -import takes the archive that script brings back and puts it where lessons read it.`)
		fs.PrintDefaults()
	}
	if help, err = parseFlags(fs, args); help || err != nil {
		return f, help, err
	}
	if fs.NArg() > 0 {
		return f, false, fmt.Errorf("record: unexpected arguments %q (use -only)", fs.Args())
	}
	return f, false, nil
}

// record runs the chosen experiments on one device, writing each one's results (and chart) under
// the reference directory and the manifest after each; or, with -import, -plan or -list, only that.
func record(args []string) error {
	f, help, err := parseRecordFlags(args)
	if help || err != nil {
		return err
	}
	if f.importFile != "" {
		return importRecording(f.importFile, os.Stdout)
	}
	if f.plan {
		printPlan(os.Stdout)
		return nil
	}
	exps, variants, err := chooseExperiments(f.only, f.group)
	if err != nil {
		return err
	}
	if f.list {
		for _, e := range exps {
			fmt.Printf("%-32s %s\n", e.ID(), e.Doc)
		}
		return nil
	}
	outDir, err := recordOutDir(f.out)
	if err != nil {
		return err
	}
	dev, err := devices.Open(f.device)
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	scale, err := recordScale(dev, f.scale)
	if err != nil {
		return err
	}
	devDir := filepath.Join(outDir, experiments.Slug(dev.Model))
	fmt.Printf("record: %d experiment(s) on %s (%s), scale %s → %s\n", len(exps), dev.Name, dev.Model, scale, devDir)
	man := startManifest(devDir, dev, scale, args)
	rec := recording{dev: dev, scale: scale, outDir: outDir, devDir: devDir, charts: !f.noCharts, budget: f.budget, man: man}
	return rec.run(exps, variants)
}

// chooseExperiments are the experiments -only or -group names (all of them when neither), and for
// -group each one's plan variant by id.
func chooseExperiments(only string, group int) ([]experiments.Experiment, map[string]string, error) {
	list, err := courseExperiments()
	if err != nil {
		return nil, nil, err
	}
	exps, err := selectExperiments(list, only)
	variants := map[string]string{}
	if group != 0 {
		if only != "" {
			return nil, nil, errors.New("record: -group and -only exclude each other")
		}
		var ps []planned
		exps, ps, err = groupExperiments(list, group)
		for _, p := range ps {
			variants[p.ID] = p.Variant
		}
	}
	return exps, variants, err
}

// recordOutDir is -out, or the checkout's lessons/reference (an error outside a checkout: the
// binary refuses to guess).
func recordOutDir(out string) (string, error) {
	if out != "" {
		return out, nil
	}
	if _, err := os.Stat(filepath.Join(experiments.Root(), "go.mod")); err != nil {
		return "", fmt.Errorf("record: no course checkout at %s (set WHYGPU_ROOT or pass -out DIR)", experiments.Root())
	}
	return experiments.ReferenceDir(), nil
}

// recordScale is -scale, by default the GPU sizes on a GPU and the laptop's elsewhere.
func recordScale(dev *devices.Device, name string) (experiments.Scale, error) {
	switch experiments.Scale(name) {
	case "":
		if dev.IsGPU() {
			return experiments.GPU, nil
		}
		return experiments.Laptop, nil
	case experiments.GPU, experiments.Laptop:
		return experiments.Scale(name), nil
	}
	return "", fmt.Errorf("record: -scale must be %s or %s, not %q", experiments.GPU, experiments.Laptop, name)
}

// startManifest is the device directory's manifest (what earlier calls recorded there) stamped with
// this call: device, model, scale, plugin, host, command line and build versions.
func startManifest(devDir string, dev *devices.Device, scale experiments.Scale, args []string) *Manifest {
	man := loadManifest(filepath.Join(devDir, "record.json"))
	host, _ := os.Hostname()
	man.Device, man.Model, man.Scale = dev.Name, dev.Model, string(scale)
	man.Plugin, man.PJRTVersion, man.Host = filepath.Base(dev.Plugin), dev.PJRTVersion, host
	man.Command = "whygpu record " + strings.Join(args, " ")
	man.Build = buildVersions()
	return man
}

// recording is one record call's device, sizes, where it writes, its time budget and its manifest.
type recording struct {
	dev            *devices.Device
	scale          experiments.Scale
	outDir, devDir string
	charts         bool
	budget         time.Duration
	man            *Manifest
}

// run runs exps in order, one line each (ok, skip, FAIL, or NOT RUN when its estimate no longer fits
// the budget), and rewrites the manifest after each; it fails when an experiment failed.
func (rec recording) run(exps []experiments.Experiment, variants map[string]string) error {
	failed := 0
	start := time.Now()
	var notRun []string
	for _, e := range exps {
		if est := estimateOf(e.ID()); rec.budget > 0 && time.Since(start)+est > rec.budget {
			notRun = append(notRun, e.ID())
			fmt.Printf("  NOT RUN %-29s its estimate %.0f s no longer fits the %.0f s left of -budget %s\n",
				e.ID(), est.Seconds(), (rec.budget - time.Since(start)).Seconds(), rec.budget)
			continue
		}
		entry := runOne(e, rec.dev, rec.scale, rec.outDir, rec.devDir, rec.charts)
		entry.Variant = variants[e.ID()]
		if entry.Skipped != "" {
			fmt.Printf("  skip %-32s %6.1fs  %s\n", e.ID(), entry.Seconds, entry.Skipped)
		} else if entry.Error != "" {
			failed++
			fmt.Printf("  FAIL %-32s %6.1fs  %s\n", e.ID(), entry.Seconds, entry.Error)
		} else {
			fmt.Printf("  ok   %-32s %6.1fs  %d result(s) → %s\n", e.ID(), entry.Seconds, entry.Results, filepath.Join(rec.devDir, entry.File))
		}
		rec.man.put(entry)
		rec.man.Updated = time.Now().UTC()
		if err := writeJSON(filepath.Join(rec.devDir, "record.json"), rec.man); err != nil {
			return fmt.Errorf("record: writing the manifest: %w", err)
		}
	}
	if len(notRun) > 0 {
		fmt.Printf("record: %d experiment(s) not run for lack of time; record them in a later call with ONLY=%s\n", len(notRun), strings.Join(notRun, ","))
	}
	if failed > 0 {
		return fmt.Errorf("record: %d of %d experiment(s) failed (see above and %s)", failed, len(exps), filepath.Join(rec.devDir, "record.json"))
	}
	fmt.Printf("record: done; manifest %s\n", filepath.Join(rec.devDir, "record.json"))
	return nil
}

// courseExperiments is what record runs and plans: every lesson's experiments (lessons/all's list)
// and the fakes of a test build (fakeExperiments: this package's tests, a -tags whygpufake binary),
// sorted by ID.
func courseExperiments() (experiments.List, error) {
	return experiments.Join(append(slices.Clone(all.Experiments), fakeExperiments)...)
}

// selectExperiments filters by -only: exact ids ("01-race/sweep") or whole lessons ("01-race").
func selectExperiments(all []experiments.Experiment, only string) ([]experiments.Experiment, error) {
	if len(all) == 0 {
		return nil, errors.New("record: no experiments (every lesson's are listed in lessons/all.Experiments)")
	}
	if strings.TrimSpace(only) == "" {
		return all, nil
	}
	var out []experiments.Experiment
	for _, want := range strings.Split(only, ",") {
		want = strings.Trim(strings.TrimSpace(want), "/")
		if want == "" {
			continue
		}
		found := false
		for _, e := range all {
			if e.ID() == want || e.Lesson == want {
				out = append(out, e)
				found = true
			}
		}
		if !found {
			var ids []string
			for _, e := range all {
				ids = append(ids, e.ID())
			}
			return nil, fmt.Errorf("record: no experiment or lesson %q (registered: %s)", want, strings.Join(ids, ", "))
		}
	}
	return out, nil
}

// runOne runs an experiment (a panic becomes its error), saves its results and chart.
func runOne(e experiments.Experiment, dev *devices.Device, scale experiments.Scale, outDir, devDir string, chart bool) (entry ManifestEntry) {
	entry = ManifestEntry{ID: e.ID(), Doc: e.Doc, Recorded: time.Now().UTC()}
	t0 := time.Now()
	defer func() { entry.Seconds = time.Since(t0).Seconds() }()
	rs, err := func() (rs []results.Result, err error) {
		defer panics.Catch(&err, "panic")
		return e.Run(dev, scale)
	}()
	if errors.Is(err, experiments.ErrNotApplicable) {
		entry.Skipped = err.Error()
		return entry
	}
	if err != nil {
		entry.Error = err.Error()
		return entry
	}
	if len(rs) == 0 {
		entry.Error = "the experiment returned no results"
		return entry
	}
	// Every number carries its provenance: fill in what an experiment left empty, and refuse
	// results that claim another device.
	for i := range rs {
		p := &rs[i].Provenance
		if p.Device == "" {
			*p = results.ProvenanceOf(dev)
		}
		if p.Device != dev.Name || p.Recorded {
			entry.Error = fmt.Sprintf("result %d (%s) has provenance %q, recorded=%v; want a live measurement on %s", i, rs[i].Label, p.Device, p.Recorded, dev.Name)
			return entry
		}
	}
	var path string
	if filepath.Clean(outDir) == filepath.Clean(experiments.ReferenceDir()) {
		path, err = experiments.SaveReference(e, rs)
	} else {
		path = filepath.Join(devDir, e.Lesson, e.Name+".json")
		err = results.Save(path, rs)
	}
	if err != nil {
		entry.Error = "saving: " + err.Error()
		return entry
	}
	entry.Results = len(rs)
	entry.File, _ = filepath.Rel(devDir, path)
	if chart {
		svgPath := strings.TrimSuffix(path, ".json") + ".svg"
		if err := writeChart(svgPath, e, rs, scale); err != nil {
			fmt.Printf("  note: no chart for %s: %v\n", e.ID(), err)
		} else {
			entry.Chart, _ = filepath.Rel(devDir, svgPath)
		}
	}
	return entry
}

// writeChart draws one bar per result: achieved GFLOP/s, or GB/s for results without FLOPs.
func writeChart(path string, e experiments.Experiment, rs []results.Result, scale experiments.Scale) error {
	useFLOPs := false
	for _, r := range rs {
		if r.FLOPs > 0 {
			useFLOPs = true
		}
	}
	var bars []charts.Bar
	for _, r := range rs {
		v := r.BytesPerSec() / 1e9
		if useFLOPs {
			v = r.GFLOPS()
		}
		bars = append(bars, fromresult.Bar(r, shortLabel(r.Label), v))
	}
	unit := "achieved GB/s"
	if useFLOPs {
		unit = "achieved GFLOP/s"
	}
	p0 := rs[0].Provenance
	title := fmt.Sprintf("%s on %s, recorded %s (scale %s)", e.ID(), p0.Model, p0.Date.Format("2006-01-02"), scale)
	p, err := charts.Bars(title, unit, bars)
	if err != nil {
		return err
	}
	w := charts.Width
	if n := len(bars); n > 6 {
		w = charts.Width * vg.Length(float64(n)/6)
	}
	svg, err := charts.SVG(p, w, charts.Height)
	if err != nil {
		return err
	}
	return os.WriteFile(path, svg, 0o644)
}

func shortLabel(s string) string {
	r := []rune(s)
	if len(r) > 28 {
		return string(r[:27]) + "…"
	}
	return s
}

func loadManifest(path string) *Manifest {
	m := &Manifest{}
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, m)
	}
	return m
}

// put replaces the entry with the same id or appends it.
func (m *Manifest) put(e ManifestEntry) {
	for i := range m.Experiments {
		if m.Experiments[i].ID == e.ID {
			m.Experiments[i] = e
			return
		}
	}
	m.Experiments = append(m.Experiments, e)
}

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// buildVersions lists the Go version and the versions of the modules that shape the numbers.
func buildVersions() map[string]string {
	out := map[string]string{}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	out["go"] = bi.GoVersion
	for _, d := range bi.Deps {
		switch d.Path {
		case "github.com/gomlx/gomlx", "github.com/gomlx/go-xla", "github.com/gomlx/compute", "github.com/janpfeifer/gonb":
			v := d.Version
			if d.Replace != nil {
				v = d.Replace.Version
			}
			out[d.Path] = v
		}
	}
	return out
}
