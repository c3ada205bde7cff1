package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// RunEnv names the run a process belongs to when set (scripts, tests); otherwise a GoNB cell
// belongs to its kernel session (GoNB's GONB_TMP_DIR, one per kernel start) and any other process
// to itself.
const RunEnv = "WHYGPU_RUN"

// RunID identifies this run: what was measured in it is "live"; what another run measured — an
// earlier kernel session, yesterday's notebook — is not, whatever its results say.
func RunID() string {
	if r := os.Getenv(RunEnv); r != "" {
		return r
	}
	if d := os.Getenv("GONB_TMP_DIR"); d != "" {
		return "kernel " + filepath.Base(d)
	}
	return fmt.Sprintf("process %d", os.Getpid())
}

// Kept is the stamp KeepValue writes beside what it keeps: which run kept it and when, and for
// results the devices and sizes they cover; Failed holds the error of a measuring cell that failed
// (KeepFailed), so the cell after it refuses instead of showing an older keep.
type Kept struct {
	Name    string    `json:"name"`
	Run     string    `json:"run"`               // RunID of the keeping process
	Time    time.Time `json:"time"`              // when it was kept
	Host    string    `json:"host,omitempty"`    // host name
	Devices []string  `json:"devices,omitempty"` // devices of the results (Keep only)
	Sizes   []string  `json:"sizes,omitempty"`   // the results' distinct sizes, "batch=32 hidden=64" (Keep only)
	Count   int       `json:"count,omitempty"`   // number of results (Keep only)
	Failed  string    `json:"failed,omitempty"`  // the measuring cell's error (KeepFailed)
}

// Line is what a chart or table cell says about what it shows: "measured live at 14:03 on xla:cpu
// (12 results, 6 sizes)".
func (k Kept) Line() string {
	s := "measured live at " + k.Time.Local().Format("15:04")
	if len(k.Devices) > 0 {
		s += " on " + strings.Join(k.Devices, ", ")
	}
	if k.Count > 0 {
		s += fmt.Sprintf(" (%d results, %d sizes)", k.Count, len(k.Sizes))
	}
	return s
}

// keptFile is the file KeepValue writes: the stamp and the value.
type keptFile struct {
	Kept  Kept            `json:"kept"`
	Value json.RawMessage `json:"value"`
}

// ErrNotThisRun is wrapped by Recall's error when what is kept does not belong to this run: kept by
// another run, by a measuring cell that failed, or by an older version of the course.
var ErrNotThisRun = errors.New("not measured in this run")

// Keep saves results under a name in CacheDir, for a later cell to Recall, stamped with this run,
// the time, and the devices and sizes the results cover.
func Keep(name string, results []Result) error {
	k := stamp(name)
	devs, sizes := map[string]bool{}, map[string]bool{}
	for _, r := range results {
		devs[r.Provenance.Device] = true
		sizes[sizeOf(r.Params)] = true
	}
	k.Devices, k.Sizes, k.Count = slices.Sorted(maps.Keys(devs)), slices.Sorted(maps.Keys(sizes)), len(results)
	return keep(k, results)
}

// sizeOf is "k=v ..." of a result's parameters, in key order.
func sizeOf(p map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, p[k]))
	}
	return strings.Join(parts, " ")
}

// KeepFailed records under name that the cell measuring it failed with err: until it succeeds,
// Recall refuses with that error instead of returning what an earlier run kept.
func KeepFailed(name string, err error) error {
	k := stamp(name)
	k.Failed = err.Error()
	return keep(k, nil)
}

// KeepOr is how a measuring cell ends: Keep(name, results) when err is nil, else KeepFailed and err.
func KeepOr(name string, results []Result, err error) error {
	if err != nil {
		_ = KeepFailed(name, err) // the error the cell shows is err; the keep only follows it
		return err
	}
	return Keep(name, results)
}

// Recall loads results kept under name by an earlier cell of this run. It refuses (ErrNotThisRun)
// what another run kept or what a failed measuring cell left, saying which cell to run.
// Every successful Recall is passed to RecallHook when set: display sets it to say, in the cell
// that shows them, when the results were measured (Kept.Line: "measured live at 14:03 on …").
func Recall(name string) ([]Result, error) {
	rs, k, err := RecallStamped[[]Result](name)
	if err == nil && RecallHook != nil {
		RecallHook(k)
	}
	return rs, err
}

// RecallHook, when set, is called with the stamp of every result set Recall returns.
var RecallHook func(Kept)

// KeepValue saves any JSON-marshalable value under a name in CacheDir, stamped like Keep, for a
// later cell of this run to RecallValue: how a lesson carries what one cell computed into the next
// (each cell is a new process).
func KeepValue[T any](name string, v T) error { return keep(stamp(name), v) }

// RecallValue loads the value an earlier cell of this run kept under name; see Recall.
func RecallValue[T any](name string) (T, error) {
	v, _, err := RecallStamped[T](name)
	return v, err
}

// RecallStamped is RecallValue with the stamp, for a cell that says when its numbers were measured
// (Kept.Line).
func RecallStamped[T any](name string) (T, Kept, error) {
	var v T
	b, err := os.ReadFile(runKeptPath(name)) // this run's own keep first: kernels side by side share CacheDir
	if err != nil {
		b, err = os.ReadFile(keptPath(name)) // the last keep of any run: refused below when not this run's
	}
	if err != nil {
		if os.IsNotExist(err) {
			return v, Kept{}, fmt.Errorf("results: nothing kept under %q yet: run the cell that measures it first", name)
		}
		return v, Kept{}, err
	}
	var f keptFile
	if err := json.Unmarshal(b, &f); err != nil || f.Kept.Run == "" {
		return v, Kept{}, fmt.Errorf("results: what is kept under %q has no stamp (kept by an older version of the course), %w: run the cell that measures it again", name, ErrNotThisRun)
	}
	k := f.Kept
	switch {
	case k.Failed != "":
		return v, k, fmt.Errorf("results: the cell that measures %q failed at %s (%s), so nothing it kept is shown, %w: fix what it says and run it again",
			name, k.Time.Local().Format("15:04"), k.Failed, ErrNotThisRun)
	case k.Run != RunID():
		return v, k, fmt.Errorf("results: what is kept under %q was measured on %s by another run (%s), %w: run the cell that measures it first",
			name, k.Time.Local().Format("2006-01-02 15:04"), k.Run, ErrNotThisRun)
	}
	if err := json.Unmarshal(f.Value, &v); err != nil {
		return v, k, fmt.Errorf("results: reading what was kept under %q: %w", name, err)
	}
	return v, k, nil
}

// StoreCache saves a value under name in CacheDir for any later run: for what stays true across
// runs (a kernel count keyed by everything it depends on), never for measurements (KeepValue).
func StoreCache[T any](name string, v T) error {
	return WriteJSON(filepath.Join(CacheDir(), "cache", name+".json"), v)
}

// LoadCache loads what StoreCache saved under name; ok is false when there is none or it does not read.
func LoadCache[T any](name string) (v T, ok bool) {
	b, err := os.ReadFile(filepath.Join(CacheDir(), "cache", name+".json"))
	if err != nil || json.Unmarshal(b, &v) != nil {
		return v, false
	}
	return v, true
}

func stamp(name string) Kept {
	host, _ := os.Hostname()
	return Kept{Name: name, Run: RunID(), Time: time.Now(), Host: host}
}

func keptPath(name string) string { return filepath.Join(CacheDir(), name+".json") }

// runKeptPath is where this run keeps name as well, so that two kernels running the same lesson at
// once (learners sharing a machine's cache) each recall their own measurement, not the other's.
func runKeptPath(name string) string {
	run := strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
			return r
		}
		return '_'
	}, RunID())
	return filepath.Join(CacheDir(), "runs", run, name+".json")
}

func keep(k Kept, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f := keptFile{Kept: k, Value: b}
	if err := WriteJSON(runKeptPath(k.Name), f); err != nil {
		return err
	}
	return WriteJSON(keptPath(k.Name), f)
}
