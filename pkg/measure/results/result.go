package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"

	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Provenance says where and when a result was measured.
type Provenance struct {
	Device      string    `json:"device"`                 // device name: xla:cpu, xla:cuda, go
	Model       string    `json:"model"`                  // hardware model, e.g. "NVIDIA H200 (139 GiB)"
	Plugin      string    `json:"plugin,omitempty"`       // PJRT plugin file
	PJRTVersion string    `json:"pjrt_version,omitempty"` // PJRT C API version of the plugin
	Driver      string    `json:"driver,omitempty"`       // NVIDIA driver version, GPUs only
	GoMLX       string    `json:"gomlx"`                  // GoMLX module version
	GoXLA       string    `json:"go_xla"`                 // go-xla module version
	Go          string    `json:"go"`                     // Go version
	Host        string    `json:"host"`                   // host name
	Date        time.Time `json:"date"`                   // when it was measured
	Config      string    `json:"config,omitempty"`       // device config when it has options, e.g. "xla:cuda,tf32=false"
	TF32        bool      `json:"tf32,omitempty"`         // float32 matrix products ran in TF32
	// Recorded is true for results loaded from a reference file rather than measured in this process.
	Recorded bool `json:"recorded,omitempty"`
	// Run is the RunID of the run that measured it (ProvenanceOf): a result is live only in that run
	// (Live); anywhere else it is an earlier measurement, whatever else it says.
	Run string `json:"run,omitempty"`
}

// Live reports whether the result was measured in this run: not recorded, and Run is RunID().
// Only a live result may be shown as "measured live".
func (p Provenance) Live() bool { return !p.Recorded && p.Run != "" && p.Run == RunID() }

// HasOrigin reports whether the provenance says where the numbers came from: recorded on a named
// device (Device and Date), or measured in a run (Device and Run). Display refuses a result without.
func (p Provenance) HasOrigin() bool {
	return p.Device != "" && ((p.Recorded && !p.Date.IsZero()) || (!p.Recorded && p.Run != ""))
}

// Label is a short human label: "xla:cpu, live" or "NVIDIA H200, recorded 2026-11-30".
// The device part is Config when the device was opened with options.
func (p Provenance) Label() string {
	dev := p.Device
	if p.Config != "" {
		dev = p.Config
	}
	return fmt.Sprintf("%s (%s), %s", dev, p.Model, p.Origin())
}

// Origin is how the numbers were obtained, without the device: "measured live" only for a Live
// result, "recorded 2026-11-30", "measured in another run (2026-11-28 14:03), not live" for a result
// of another run, and "no origin" for one that says neither (a table's source column).
func (p Provenance) Origin() string {
	switch {
	case p.Recorded:
		return "recorded " + p.Date.Format("2006-01-02")
	case p.Live():
		return "measured live"
	case p.Run != "":
		return "measured in another run (" + p.Date.Local().Format("2006-01-02 15:04") + "), not live"
	}
	return "no origin"
}

// OriginOf is where a result's numbers come from, as display's badge shows it: measured live at
// its time (Provenance.Live), recorded on "<model>, <date>", or — measured by another run, or with no
// provenance — units.Unstated with Origin's words as the note (never shown as live).
func OriginOf(p Provenance) units.Origin {
	switch {
	case p.Recorded:
		note := p.Model
		if note == "" {
			note = p.Device
		}
		if !p.Date.IsZero() {
			note += ", " + p.Date.Format("2006-01-02")
		}
		return units.RecordedOn(note)
	case p.Live():
		return units.Measured(p.Date)
	}
	return units.Origin{Kind: units.Unstated, Note: p.Origin()}
}

// Origins is where the results' numbers come from, one per distinct origin (a table's Origins).
func Origins(rs []Result) []units.Origin {
	os := make([]units.Origin, len(rs))
	for i, r := range rs {
		os[i] = OriginOf(r.Provenance)
	}
	return units.Distinct(os)
}

// ProvenanceOf builds the provenance of a measurement made now on dev.
func ProvenanceOf(dev *devices.Device) Provenance {
	host, _ := os.Hostname()
	p := Provenance{
		Device: dev.Name, Model: dev.Model, Plugin: filepath.Base(dev.Plugin), PJRTVersion: dev.PJRTVersion,
		GoMLX: ModuleVersion("github.com/gomlx/gomlx"), GoXLA: ModuleVersion("github.com/gomlx/go-xla"),
		Go: runtime.Version(), Host: host, Date: time.Now().UTC(), TF32: dev.TF32, Run: RunID(),
	}
	if dev.Config != dev.Name {
		p.Config = dev.Config
	}
	if dev.IsGPU() {
		if g := devices.GPUs(); len(g) > 0 {
			p.Driver = g[0].Driver
		}
	}
	return p
}

// moduleVersion reads a dependency's version from the build info ("" if unknown).
func ModuleVersion(path string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == path {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}

// Result is one timed workload on one device.
type Result struct {
	Workload string         `json:"workload"`   // kind, e.g. "matmul"
	Label    string         `json:"label"`      // with shapes, e.g. "matmul 1024×1024 @ 1024×1024 float32"
	DType    string         `json:"dtype"`      // element type, lower case: "float32"
	Params   map[string]int `json:"params"`     // shape parameters, e.g. {"m":1024,"k":1024,"n":1024}
	FLOPs    float64        `json:"flops"`      // per run
	Bytes    float64        `json:"bytes"`      // minimum bytes moved per run
	Compile  time.Duration  `json:"compile_ns"` // graph compilation, timed apart from the runs
	Stats    Stats          `json:"stats"`      // the timed runs
	RelErr   float64        `json:"rel_err"`    // vs float64 reference; -1 when not checked
	// Metrics are values measured alongside the time, by name (e.g. the peak bytes a training step
	// needed): Params holds only the sizes that define the experiment.
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Tolerance is the relative error allowed for Precision (see workloads.ToleranceOf).
	Tolerance float64 `json:"tolerance,omitempty"`
	// Precision is the arithmetic actually used: the dtype, or "tf32" for float32 matrix products on
	// tensor cores. It keys PeakFLOPS and CeilingFLOPS.
	Precision string `json:"precision,omitempty"`
	// PeakFLOPS, PeakBytesPerSec and PeakSource are the device's datasheet or model ceilings.
	PeakFLOPS       float64 `json:"peak_flops,omitempty"`       // peak FLOP/s for Precision
	PeakBytesPerSec float64 `json:"peak_bytes_per_s,omitempty"` // datasheet memory bandwidth (0 for CPUs)
	PeakSource      string  `json:"peak_source,omitempty"`      // where the peaks come from
	// CeilingFLOPS and CeilingBytesPerSec are what this device measured on large matmuls and on copy
	// passes beyond the caches (see MeasureCeilings), when they had been measured; 0 otherwise.
	CeilingFLOPS       float64 `json:"ceiling_flops,omitempty"`       // measured matmul FLOP/s for Precision
	CeilingBytesPerSec float64 `json:"ceiling_bytes_per_s,omitempty"` // measured copy bandwidth
	// FirstTouchPerByte is what the first touch of fresh memory cost on this device, in seconds per
	// byte (measured per page on a CPU, see MeasureCeilings; 0 elsewhere): with Stats.FreshBytes, the
	// time a run spent on page faults.
	FirstTouchPerByte float64    `json:"first_touch_s_per_byte,omitempty"`
	Provenance        Provenance `json:"provenance"` // where, when and with what
}

// Metric is the measured value called name: from Metrics or, for a result saved before Metrics
// existed (when measured values were kept among the Params), from Params; ok is false when neither
// has it.
func (r Result) Metric(name string) (v float64, ok bool) {
	if v, ok = r.Metrics[name]; ok {
		return v, true
	}
	if p, ok := r.Params[name]; ok {
		return float64(p), true
	}
	return 0, false
}

// SetMetric records the measured value called name.
func (r *Result) SetMetric(name string, v float64) {
	if r.Metrics == nil {
		r.Metrics = map[string]float64{}
	}
	r.Metrics[name] = v
}

// Seconds is the median run time in seconds.
func (r Result) Seconds() float64 { return r.Stats.Median.Seconds() }

// FLOPS is the achieved FLOP/s at the median.
func (r Result) FLOPS() float64 { return safeDiv(r.FLOPs, r.Seconds()) }

// GFLOPS is the achieved GFLOP/s at the median.
func (r Result) GFLOPS() float64 { return r.FLOPS() / 1e9 }

// BytesPerSec is the achieved bandwidth (minimum bytes over median time).
func (r Result) BytesPerSec() float64 { return safeDiv(r.Bytes, r.Seconds()) }

// GBPerSec is the achieved bandwidth in GB/s (10⁹ bytes per second).
func (r Result) GBPerSec() float64 { return r.BytesPerSec() / 1e9 }

// Intensity is the arithmetic intensity in FLOPs per byte.
func (r Result) Intensity() float64 { return safeDiv(r.FLOPs, r.Bytes) }

// PercentOfPeak is achieved FLOP/s as a percentage of the device's peak (0 when unknown).
func (r Result) PercentOfPeak() float64 { return 100 * safeDiv(r.FLOPS(), r.PeakFLOPS) }

// PercentOfPeakBandwidth is achieved bandwidth as a percentage of the device's datasheet bandwidth
// (0 when unknown, as for CPUs, whose model has no bandwidth).
func (r Result) PercentOfPeakBandwidth() float64 {
	return 100 * safeDiv(r.BytesPerSec(), r.PeakBytesPerSec)
}

// Attainable is what the measured roofline allows at this result's intensity:
// min(CeilingFLOPS, Intensity × CeilingBytesPerSec) in FLOP/s. For a workload without FLOPs (a copy,
// a transfer) it is CeilingBytesPerSec in bytes/s. 0 when the ceilings were not measured.
func (r Result) Attainable() float64 {
	if r.FLOPs == 0 {
		return r.CeilingBytesPerSec
	}
	switch {
	case r.CeilingFLOPS > 0 && r.CeilingBytesPerSec > 0:
		return min(r.CeilingFLOPS, r.Intensity()*r.CeilingBytesPerSec)
	case r.CeilingFLOPS > 0:
		return r.CeilingFLOPS
	}
	return 0
}

// PercentOfCeiling is how close this result came to what this machine measurably does at its
// arithmetic intensity: achieved FLOP/s over Attainable (achieved bytes/s for workloads without
// FLOPs), in percent. It can pass 100 a little: ceilings are medians too. 0 when not measured.
func (r Result) PercentOfCeiling() float64 {
	if r.FLOPs == 0 {
		return 100 * safeDiv(r.BytesPerSec(), r.Attainable())
	}
	return 100 * safeDiv(r.FLOPS(), r.Attainable())
}

// Correct reports whether the result was checked and its error is within Tolerance.
func (r Result) Correct() bool { return r.RelErr >= 0 && r.RelErr <= r.Tolerance }

func safeDiv(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// String is a one-line summary.
func (r Result) String() string {
	spread := r.Stats.Spread()
	if !r.Stats.OneSample() {
		spread = fmt.Sprintf("min %s, p90 %s, CV %.1f%%", r.Stats.Min.Round(time.Microsecond), r.Stats.P90.Round(time.Microsecond), 100*r.Stats.CV)
	}
	return fmt.Sprintf("%-9s %-44s median %9s  (%s)  %8.1f GFLOP/s  %7.2f GB/s",
		r.Provenance.Device, r.Label, r.Stats.Median.Round(time.Microsecond), spread, r.GFLOPS(), r.GBPerSec()) + disturbedSuffix(r.Stats)
}

func disturbedSuffix(s Stats) string {
	if !s.Disturbed() {
		return ""
	}
	return "  DISTURBED — " + s.Disturbance.Advice()
}

// Save writes results as indented JSON.
func Save(path string, results []Result) error { return WriteJSON(path, results) }

// WriteJSON writes v to path as indented JSON, atomically (writeAtomic), creating the directory.
func WriteJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(path, append(b, '\n'))
}

// writeAtomic writes b to path through a temporary file in the same directory and a rename, so a
// reader — the next cell, or another notebook of the same learner keeping under the same name at the
// same time (several tabs on one server) — sees the old file or the new one, never half of one.
func writeAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
	}
	return err
}

// Load reads results written by Save. Results loaded from a file are marked Recorded.
func Load(path string) ([]Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rs []Result
	if err := json.Unmarshal(b, &rs); err != nil {
		return nil, fmt.Errorf("results: reading %s: %w", path, err)
	}
	for i := range rs {
		rs[i].Provenance.Recorded = true
	}
	return rs, nil
}

// CacheDir is where results are kept between notebook cells (each GoNB cell is a new process):
// $WHYGPU_CACHE, or the user's cache dir + "/whygpu".
func CacheDir() string {
	if d := os.Getenv("WHYGPU_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "whygpu")
}
