package measure

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Implementations a bench point can hold, besides a GoMLX device name ("xla:cpu", "go").
const (
	BenchJAX          = "jax"           // JAX on the CPU, waiting for every call (block_until_ready)
	BenchJAXPipelined = "jax-pipelined" // JAX dispatching calls without waiting, one wait at the end
	BenchNumPy        = "numpy"         // numpy (OpenBLAS), where the workload has a numpy form
)

// Bench metrics: how a point is compared.
const (
	PerCall = "per call" // latency of one call (or one training step), waited for
	GFLOPS  = "GFLOP/s"  // throughput of a compute-bound point
	GBPS    = "GB/s"     // bandwidth of a memory-bound point
)

// BenchReport is what `whygpu bench` measured in one run: GoMLX and JAX (and numpy) on the same
// shapes, interleaved so every ratio compares points taken under the same load. Lessons read the
// latest one (LoadBench) to put JAX's per-call cost on this CPU next to GoMLX's; it is always shown
// with its date and host, never as a live number.
type BenchReport struct {
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
	Others float64      `json:"others_percent"`
	Points []BenchPoint `json:"points"`
}

// BenchPoint is one workload measured on every implementation.
type BenchPoint struct {
	Workload string               `json:"workload"` // "matmul", "mlp-sgd", "layernorm"
	Label    string               `json:"label"`    // with shapes
	Params   map[string]int       `json:"params"`
	Metric   string               `json:"metric"` // PerCall, GFLOPS or GBPS
	Impls    map[string]BenchImpl `json:"impls"`  // by implementation: "xla:cpu", "go", BenchJAX, ...
	// Others is the CPU other processes used while the point was measured, % of all cores.
	Others float64 `json:"others_percent"`
	// Throttled is how many of the cgroup's CPU quota periods throttled the point (every
	// implementation's runs: GoMLX's in this process, JAX's and numpy's in the worker, which shares the
	// cgroup), ThrottledTime for how long.
	Throttled     uint64        `json:"throttled_periods,omitempty"`
	ThrottledTime time.Duration `json:"throttled_ns,omitempty"`
}

// BenchDisturbedPercent is the share of all cores other processes may use during a bench point before
// it is marked disturbed (stricter than DisturbedCores: the bench's verdicts compare implementations).
const BenchDisturbedPercent = 5.0

// Disturbed reports whether other processes (BenchDisturbedPercent) or the cgroup's CPU quota (any
// throttling) disturbed the point.
func (p BenchPoint) Disturbed() bool { return p.Others >= BenchDisturbedPercent || p.Throttled > 0 }

// DisturbedWhy says what disturbed the point ("" when it was not).
func (p BenchPoint) DisturbedWhy() string {
	var why []string
	if p.Others >= BenchDisturbedPercent {
		why = append(why, fmt.Sprintf("others used %.0f%% of the CPUs", p.Others))
	}
	if p.Throttled > 0 {
		why = append(why, fmt.Sprintf("the CPU quota paused it %d times (%v)", p.Throttled, p.ThrottledTime.Round(time.Millisecond)))
	}
	return strings.Join(why, ", ")
}

// BenchImpl is one implementation's timing of a point.
type BenchImpl struct {
	Stats  Stats   `json:"stats"`             // per call
	Value  float64 `json:"value"`             // in the point's metric: seconds per call, GFLOP/s or GB/s
	RelErr float64 `json:"rel_err,omitempty"` // GoMLX points: vs float64 (-1 unchecked)
	Err    string  `json:"error,omitempty"`
}

// BenchPath is where `whygpu bench` saves its latest report: CacheDir()/bench/latest.json.
func BenchPath() string { return filepath.Join(CacheDir(), "bench", "latest.json") }

// SaveBench writes r to path (BenchPath when empty).
func SaveBench(path string, r BenchReport) error {
	if path == "" {
		path = BenchPath()
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

// LoadBench reads the latest report of `whygpu bench` (BenchPath). The error says how to make one.
func LoadBench() (BenchReport, error) {
	var r BenchReport
	b, err := os.ReadFile(BenchPath())
	if os.IsNotExist(err) {
		return r, fmt.Errorf("measure: no bench report at %s: run `make bench` first", BenchPath())
	}
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("measure: reading %s: %w", BenchPath(), err)
	}
	return r, nil
}

// Find returns the timing of impl on the point of workload with exactly params.
func (r BenchReport) Find(workload string, params map[string]int, impl string) (BenchImpl, bool) {
	for _, p := range r.Points {
		if p.Workload == workload && maps.Equal(p.Params, params) {
			if v, ok := p.Impls[impl]; ok && v.Err == "" {
				return v, true
			}
		}
	}
	return BenchImpl{}, false
}

// Label says where and when the report was measured, e.g. "whygpu bench, 2026-12-01 on host (CPU,
// 2 cores; other processes used up to 40% of the CPUs)".
func (r BenchReport) Label() string {
	return fmt.Sprintf("whygpu bench, %s on %s (%s, %d cores; other processes used up to %.0f%% of the CPUs)",
		r.Date.Format("2006-01-02 15:04 UTC"), r.Host, r.CPU, r.Cores, r.Others)
}
