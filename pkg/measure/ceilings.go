package measure

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
)

// CeilingsTTL is how long measured ceilings stay valid: a session's worth. After it they are measured
// again (the machine, its load or its clocks may have changed).
var CeilingsTTL = 12 * time.Hour

// MeasuredCeilings are what a device actually achieves on the two operations that bound every other:
// a large matmul (compute) and a large device-to-device copy (memory bandwidth). Charts show results
// as a percentage of these ("% of what this machine actually does") next to the datasheet peaks.
//
// They are ceilings for GoMLX graphs, not for the hardware alone: on the CPU devices every large
// output XLA writes is freshly allocated memory, and its first touch page-faults, so the copy ceiling
// of xla:cpu is well below a STREAM figure for the same machine (numpy shows the same drop when
// np.negative(x) allocates its output instead of writing into an existing array). Every memory-bound
// graph pays that cost too, which is what makes the ceiling the fair denominator.
type MeasuredCeilings struct {
	Key         string             `json:"key"`         // host | device config | plugin | PJRT version | GoMLX version
	Device      string             `json:"device"`      // device name
	Config      string             `json:"config"`      // device config, options included
	Model       string             `json:"model"`       // hardware model
	Host        string             `json:"host"`        // host name
	FLOPS       map[string]float64 `json:"flops"`       // achieved FLOP/s of the large matmul, by precision
	BytesPerSec float64            `json:"bytes_per_s"` // achieved bandwidth of the large copy
	Results     []results.Result   `json:"results"`     // the measurements behind the numbers
	Date        time.Time          `json:"date"`        // when they were measured
	Elapsed     time.Duration      `json:"elapsed_ns"`  // how long measuring took, compilation included
}

// Ridge is the measured ridge point for a precision: FLOPS[precision] / BytesPerSec, in FLOPs per byte
// (0 when unknown).
func (c MeasuredCeilings) Ridge(precision string) float64 {
	if c.BytesPerSec == 0 {
		return 0
	}
	return c.FLOPS[precision] / c.BytesPerSec
}

// String is a one-line summary.
func (c MeasuredCeilings) String() string {
	var parts []string
	for _, r := range c.Results {
		if r.FLOPs > 0 {
			parts = append(parts, fmt.Sprintf("%.1f GFLOP/s %s", r.GFLOPS(), r.Precision))
		}
	}
	parts = append(parts, fmt.Sprintf("%.1f GB/s copy", c.BytesPerSec/1e9))
	return fmt.Sprintf("%s measured ceilings: %s (%s)", c.Config, strings.Join(parts, ", "), c.Date.Local().Format("15:04"))
}

// ceilingKey identifies the machine and software the ceilings belong to.
func ceilingKey(dev *devices.Device) string {
	host, _ := os.Hostname()
	return strings.Join([]string{host, dev.Config, dev.Plugin, dev.PJRTVersion, results.ModuleVersion("github.com/gomlx/gomlx")}, "|")
}

func ceilingsPath(dev *devices.Device) string {
	sum := sha256.Sum256([]byte(ceilingKey(dev)))
	name := strings.NewReplacer(":", "-", ",", "-", "=", "-", "/", "-").Replace(dev.Config)
	return filepath.Join(results.CacheDir(), "ceilings", name+"-"+hex.EncodeToString(sum[:6])+".json")
}

// CachedCeilings returns the ceilings measured for dev within CeilingsTTL, without measuring.
func CachedCeilings(dev *devices.Device) (MeasuredCeilings, bool) {
	b, err := os.ReadFile(ceilingsPath(dev))
	if err != nil {
		return MeasuredCeilings{}, false
	}
	var c MeasuredCeilings
	if json.Unmarshal(b, &c) != nil || c.Key != ceilingKey(dev) || time.Since(c.Date) > CeilingsTTL {
		return MeasuredCeilings{}, false
	}
	return c, true
}

// CeilingWorkloads are the workloads MeasureCeilings runs on dev, sized so xla:cpu on a 2-core laptop
// takes a few seconds in all: an n×n matmul (n = 2048 on xla:cpu, 1024 on the slower Go backend, 8192
// on a GPU, where bfloat16 is measured too) and a copy (128 MiB on xla:cpu, 64 MiB on Go, 1 GiB on a
// GPU: well beyond the caches).
func CeilingWorkloads(dev *devices.Device) []workloads.Workload {
	switch {
	case dev.IsGPU():
		return []workloads.Workload{workloads.Square(8192, dtypes.Float32), workloads.Square(8192, dtypes.BFloat16),
			membound.Copy{N: 256 << 20, Type: dtypes.Float32}}
	case dev.Name == devices.Go:
		return []workloads.Workload{workloads.Square(1024, dtypes.Float32), membound.Copy{N: 16 << 20, Type: dtypes.Float32}}
	}
	return []workloads.Workload{workloads.Square(2048, dtypes.Float32), membound.Copy{N: 32 << 20, Type: dtypes.Float32}}
}

// ceilingOptions: one warm-up and a few timed runs; these are large, steady operations.
var ceilingOptions = Options{Warmup: 1, Reps: 5}

// MeasureCeilings returns dev's measured ceilings: from the cache when measured on this host, device
// config, plugin and GoMLX version within CeilingsTTL, else by running CeilingWorkloads now (about 2 s
// on xla:cpu, 3 s on the Go backend) and caching them under results.CacheDir()/ceilings.
func MeasureCeilings(dev *devices.Device) (MeasuredCeilings, error) {
	if c, ok := CachedCeilings(dev); ok {
		raiseModel(dev, c)
		return c, nil
	}
	t0 := time.Now()
	host, _ := os.Hostname()
	c := MeasuredCeilings{Key: ceilingKey(dev), Device: dev.Name, Config: dev.Config, Model: dev.Model, Host: host,
		FLOPS: map[string]float64{}}
	opt := ceilingOptions
	if dev.Name == devices.Go {
		opt.Reps = 3
	}
	for _, w := range CeilingWorkloads(dev) {
		r, err := Run(dev, w, opt, false)
		if err != nil {
			return MeasuredCeilings{}, fmt.Errorf("measure: measuring the ceilings of %s: %w", dev.Name, err)
		}
		if r.FLOPs > 0 {
			c.FLOPS[r.Precision] = max(c.FLOPS[r.Precision], r.FLOPS())
		} else {
			c.BytesPerSec = max(c.BytesPerSec, r.BytesPerSec())
		}
		c.Results = append(c.Results, r)
	}
	c.Date = time.Now().UTC()
	c.Elapsed = time.Since(t0)
	raiseModel(dev, c)
	return c, results.WriteJSON(ceilingsPath(dev), c)
}

// raiseModel keeps a CPU's model peak at or above what was measured on it (devices.AtLeast): a
// model below an achieved rate would report more than 100% of peak.
func raiseModel(dev *devices.Device, c MeasuredCeilings) {
	if dev.Kind != devices.KindCPU {
		return
	}
	for prec, f := range c.FLOPS {
		dev.RaisePeak(prec, f)
	}
}
