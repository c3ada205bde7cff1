package bench

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Implementations a bench point can hold, besides a GoMLX device name ("xla:cpu", "go").
const (
	JAX          = "jax"           // JAX on the CPU, waiting for every call (block_until_ready)
	JAXPipelined = "jax-pipelined" // JAX dispatching calls without waiting, one wait at the end
	NumPy        = "numpy"         // numpy (OpenBLAS), where the workload has a numpy form
)

// Bench metrics: how a point is compared.
const (
	PerCall = "per call" // latency of one call (or one training step), waited for
	GFLOPS  = "GFLOP/s"  // throughput of a compute-bound point
	GBPS    = "GB/s"     // bandwidth of a memory-bound point
)

// Report is what `whygpu bench` measured in one run: GoMLX and JAX (and numpy) on the same
// shapes, interleaved so every ratio compares points taken under the same load. Lessons read the
// latest one (Latest) to put JAX's per-call cost on this CPU next to GoMLX's; it is always shown
// with its date and host, never as a live number.
type Report struct {
	Date   time.Time `json:"date"`
	Host   string    `json:"host"`
	CPU    string    `json:"cpu"` // CPU model
	Cores  int       `json:"cores"`
	GoMLX  string    `json:"gomlx"`
	GoXLA  string    `json:"go_xla"`
	Plugin string    `json:"plugin"` // CPU PJRT plugin file and version
	JAX    string    `json:"jax,omitempty"`
	NumPy  string    `json:"numpy,omitempty"`
	// Command is the command line that measured it ("whygpu bench -sizes 8,1024").
	Command string `json:"command,omitempty"`
	// Others is the most CPU other processes used during any point, % of all cores.
	Others float64 `json:"others_percent"`
	Points []Point `json:"points"`
}

// Point is one workload measured on every implementation.
type Point struct {
	Workload string          `json:"workload"` // "matmul", "mlp-sgd", "layernorm"
	Label    string          `json:"label"`    // with shapes
	Params   map[string]int  `json:"params"`
	Metric   string          `json:"metric"` // PerCall, GFLOPS or GBPS
	Impls    map[string]Impl `json:"impls"`  // by implementation: "xla:cpu", "go", JAX, ...
	// Others is the CPU other processes used while the point was measured, % of all cores.
	Others float64 `json:"others_percent"`
	// Throttled is how many of the cgroup's CPU quota periods throttled the point (every
	// implementation's runs: GoMLX's in this process, JAX's and numpy's in the worker, which shares the
	// cgroup), ThrottledTime for how long.
	Throttled     uint64        `json:"throttled_periods,omitempty"`
	ThrottledTime time.Duration `json:"throttled_ns,omitempty"`
}

// DisturbedPercent is the share of all cores other processes may use during a bench point before
// it is marked disturbed (stricter than results.DisturbedCores: the bench's verdicts compare implementations).
const DisturbedPercent = 5.0

// Disturbed reports whether other processes (DisturbedPercent) or the cgroup's CPU quota (any
// throttling) disturbed the point.
func (p Point) Disturbed() bool { return p.Others >= DisturbedPercent || p.Throttled > 0 }

// DisturbedWhy says what disturbed the point ("" when it was not).
func (p Point) DisturbedWhy() string {
	var why []string
	if p.Others >= DisturbedPercent {
		why = append(why, fmt.Sprintf("others used %.0f%% of the CPUs", p.Others))
	}
	if p.Throttled > 0 {
		why = append(why, fmt.Sprintf("the CPU quota paused it %d times (%v)", p.Throttled, p.ThrottledTime.Round(time.Millisecond)))
	}
	return strings.Join(why, ", ")
}

// Impl is one implementation's timing of a point.
type Impl struct {
	Stats  results.Stats `json:"stats"`             // per call
	Value  float64       `json:"value"`             // in the point's metric: seconds per call, GFLOP/s or GB/s
	RelErr float64       `json:"rel_err,omitempty"` // GoMLX points: vs float64 (-1 unchecked)
	Err    string        `json:"error,omitempty"`
}

// Path is where `whygpu bench` saves its latest report: results.CacheDir()/bench/latest.json.
func Path() string { return filepath.Join(results.CacheDir(), "bench", "latest.json") }

// Save writes r to path (Path when empty).
func Save(path string, r Report) error {
	if path == "" {
		path = Path()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// Latest reads the latest report of `whygpu bench` (Path). The error says how to make one.
func Latest() (Report, error) {
	var r Report
	b, err := os.ReadFile(Path())
	if os.IsNotExist(err) {
		return r, fmt.Errorf("bench: no bench report at %s: run `make bench` first", Path())
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("bench: reading %s: %w", Path(), err)
	}
	return r, nil
}

// Find returns the timing of impl on the point of workload with exactly params.
func (r Report) Find(workload string, params map[string]int, impl string) (Impl, bool) {
	for _, p := range r.Points {
		if p.Workload == workload && maps.Equal(p.Params, params) {
			if v, ok := p.Impls[impl]; ok && v.Err == "" {
				return v, true
			}
		}
	}
	return Impl{}, false
}

// Label says where and when the report was measured, e.g. "whygpu bench, 2026-12-01 on host (CPU,
// 2 cores; other processes used up to 40% of the CPUs)".
func (r Report) Label() string {
	return fmt.Sprintf("whygpu bench, %s on %s (%s, %d cores; other processes used up to %.0f%% of the CPUs)",
		r.Date.Format("2006-01-02 15:04 UTC"), r.Host, r.CPU, r.Cores, r.Others)
}
