package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Scale sizes every experiment of the course. Laptop is the default: each notebook cell runs in
// seconds on a 2-core laptop CPU. GPU uses the shapes at which a data-center GPU is busy.
type Scale string

// The scales.
const (
	Laptop Scale = "laptop"
	GPU    Scale = "gpu"
)

// ScaleEnv is the environment variable that overrides the scale: WHYGPU_SCALE=gpu or laptop.
const ScaleEnv = "WHYGPU_SCALE"

// CurrentScale returns the scale from $WHYGPU_SCALE, else GPU when an NVIDIA GPU is present, else
// Laptop.
func CurrentScale() Scale {
	switch Scale(strings.ToLower(os.Getenv(ScaleEnv))) {
	case GPU:
		return GPU
	case Laptop:
		return Laptop
	}
	if devices.HasNVIDIAGPU() {
		return GPU
	}
	return Laptop
}

// Pick returns laptop or gpu depending on the scale: sizes := experiments.Pick(s, 256, 8192).
func Pick[T any](s Scale, laptop, gpu T) T {
	if s == GPU {
		return gpu
	}
	return laptop
}

// Experiment is one measurement a lesson makes, runnable on any device at any scale.
type Experiment struct {
	Lesson string // lesson id, the notebook's name without extension, e.g. "01-race"
	Name   string // experiment id within the lesson, e.g. "batch-sweep"
	Doc    string // one line: what it measures
	// Run measures on dev at scale s. It must return an error, not panic, on bad input or OOM, and
	// an error wrapping ErrNotApplicable when the device cannot run it at all.
	Run func(dev *devices.Device, s Scale) ([]results.Result, error)
}

// ErrNotApplicable marks an experiment that cannot run on a device at all — an all-reduce on a
// machine with one GPU, say. Wrap it with the reason (fmt.Errorf("%w: …", ErrNotApplicable));
// `whygpu record` reports such an experiment as skipped, with that reason, not as failed.
var ErrNotApplicable = errors.New("not applicable on this device")

// ID is "lesson/name".
func (e Experiment) ID() string { return e.Lesson + "/" + e.Name }

// List is a set of experiments: a lesson's (its Experiments variable) or the course's (every
// lesson's, lessons/all.Experiments: what `whygpu record` runs). Nothing registers itself at start-up:
// a program runs the list it is handed, so what exists does not depend on what is linked.
type List []Experiment

// Join is the experiments of lists in one List sorted by ID. An experiment without a lesson, a
// name or a Run, or an ID twice, is an error (a programming error, caught by lessons/all's test).
func Join(lists ...List) (List, error) {
	var out List
	seen := map[string]bool{}
	for _, l := range lists {
		for _, e := range l {
			if e.Lesson == "" || e.Name == "" || e.Run == nil {
				return nil, fmt.Errorf("experiments: incomplete experiment %+v", e)
			}
			if seen[e.ID()] {
				return nil, errors.New("experiments: duplicate experiment " + e.ID())
			}
			seen[e.ID()] = true
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID() < out[j].ID() })
	return out, nil
}

// Lookup finds an experiment of l by "lesson/name".
func (l List) Lookup(id string) (Experiment, bool) {
	for _, e := range l {
		if e.ID() == id {
			return e, true
		}
	}
	return Experiment{}, false
}

// Root returns the course checkout: $WHYGPU_ROOT (the kernel and Makefile set it), else the
// directory this source file was compiled from when it still holds go.mod, else (a binary built with
// -trimpath, or carried to another machine: build/whygpu) the nearest parent of the working directory
// with go.mod, else the working directory. It is the one way the course finds its checkout: the
// whygpu command uses it too.
func Root() string {
	if r := os.Getenv("WHYGPU_ROOT"); r != "" {
		return r
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if d := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(file)))); hasGoMod(d) {
			return d
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if hasGoMod(d) {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

func hasGoMod(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// ReferenceDir is where reference results are kept: <root>/lessons/reference.
func ReferenceDir() string { return filepath.Join(Root(), "lessons", "reference") }

var (
	nonSlug   = regexp.MustCompile(`[^a-z0-9]+`)
	trademark = regexp.MustCompile(`\((r|tm|c)\)`)
	// sizeNote is the " (139 GiB)" / " (2 cores)" suffix package devices appends to a model name.
	sizeNote = regexp.MustCompile(`\s*\([^()]*\)\s*$`)
)

// Slug turns a device model into a directory name: "NVIDIA H200 (139 GiB)" → "nvidia-h200",
// "Intel(R) Xeon(R) Processor (2 cores)" → "intel-xeon-processor".
func Slug(model string) string {
	m := strings.ToLower(model)
	m = trademark.ReplaceAllString(m, "")
	m = sizeNote.ReplaceAllString(m, "")
	return strings.Trim(nonSlug.ReplaceAllString(m, "-"), "-")
}

// ReferencePath is the file for one experiment recorded on a device model.
func ReferencePath(deviceSlug, lesson, name string) string {
	return filepath.Join(ReferenceDir(), deviceSlug, lesson, name+".json")
}

// SaveReference writes results recorded for experiment e on the device they were measured on.
func SaveReference(e Experiment, rs []results.Result) (string, error) {
	if len(rs) == 0 {
		return "", errors.New("experiments: nothing to record")
	}
	path := ReferencePath(Slug(rs[0].Provenance.Model), e.Lesson, e.Name)
	return path, results.Save(path, rs)
}

// Recorded loads every reference recording of an experiment (one per recorded device), marked
// Recorded. It returns an empty slice, not an error, when nothing has been recorded yet.
func Recorded(lesson, name string) ([]results.Result, error) {
	dirs, err := os.ReadDir(ReferenceDir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []results.Result
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		p := ReferencePath(d.Name(), lesson, name)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		rs, err := results.Load(p)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// RecordedDevices lists the device slugs that have reference results.
func RecordedDevices() []string {
	dirs, _ := os.ReadDir(ReferenceDir())
	var out []string
	for _, d := range dirs {
		if d.IsDir() {
			out = append(out, d.Name())
		}
	}
	slices.Sort(out)
	return out
}

// OnEachDevice is how a lesson cell measures: it runs fn live on every XLA device here
// (devices.Accelerated), adds the recordings of experiment lesson/name for devices that were not
// measured live (a GPU the learner lacks), and keeps the whole set under keep for later cells
// (results.Keep). The first error stops it and is returned with the results so far; it is also
// kept (results.KeepFailed), so the chart cell below refuses instead of showing an older keep.
func OnEachDevice(lesson, name, keep string, fn func(*devices.Device) ([]results.Result, error)) ([]results.Result, error) {
	rs, err := LiveOnEachDevice(fn)
	if err == nil {
		rs, err = WithRecorded(rs, lesson, name)
	}
	return rs, results.KeepOr(keep, rs, err)
}

// LiveOnEachDevice runs fn on every XLA device here (devices.Accelerated), one after another, and
// returns all their results, live only: what a cell measuring at the learner's own sizes shows
// (recordings are at the lesson's sizes). The first error stops it and is returned with the results
// so far; with no XLA device at all, the error says why. A GPU that is here but fails to open is
// left out and not forgotten: devices keeps its error, and every chart and table of the process says
// "GPU found but it failed to open" above it (display, devices.KnownGPUFailure).
func LiveOnEachDevice(fn func(*devices.Device) ([]results.Result, error)) ([]results.Result, error) {
	devs, err := devices.Accelerated()
	if len(devs) == 0 {
		return nil, err
	}
	var all []results.Result
	for _, d := range devs {
		rs, err := fn(d)
		all = append(all, rs...)
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

// WithRecorded returns live followed by the recordings of experiment lesson/name on every device
// live has no live result for: what a lesson shows next to its own measurements (a recorded GPU
// when the learner has none).
func WithRecorded(live []results.Result, lesson, name string) ([]results.Result, error) {
	return WithRecordedWhere(live, lesson, name, nil)
}

// WithRecordedWhere is WithRecorded keeping only the recordings keep accepts (nil: all), e.g. the
// steps of one hidden width (HiddenIs).
func WithRecordedWhere(live []results.Result, lesson, name string, keep func(results.Result) bool) ([]results.Result, error) {
	recorded, err := Recorded(lesson, name)
	if err != nil {
		return live, err
	}
	here := map[string]bool{}
	for _, r := range live {
		if !r.Provenance.Recorded {
			here[r.Provenance.Device] = true
		}
	}
	out := live
	for _, r := range recorded {
		if here[r.Provenance.Device] || (keep != nil && !keep(r)) {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}
