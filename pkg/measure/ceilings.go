package measure

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/membound"
)

// CeilingsTTL is how long measured ceilings stay valid: a session's worth. After it they are measured
// again (the machine, its load or its clocks may have changed).
var CeilingsTTL = 12 * time.Hour

// CeilingsRetry is how soon ceilings measured while other programs ran are measured again: a load
// only lowers them, so MeasureCeilings tries again and keeps the best of the two.
var CeilingsRetry = 10 * time.Minute

// MeasuredCeilings are what a device actually achieves on the operations that bound every other:
// large matmuls (compute) and a large copy streamed through memory (bandwidth). Charts show results
// as a percentage of these ("% of what this machine actually does") next to the datasheet peaks.
//
// A roof is an upper bound: each ceiling is the fastest sample of the best of its workloads, and the
// bandwidth is measured the way a memory-bound step streams data, many read-and-write passes over one
// array well past the last-level cache inside one executable, so no pass pays for fresh memory. What
// an execution pays once (its fresh loop array, the entry copy, the launch: ~40 ms for 128 MiB on a
// 2-core EPYC) is left out by timing the passes twice, k and 2k of them, and dividing the extra bytes
// by the extra time (bandwidthOf): T_memory = bytes ÷ bandwidth counts bytes, not executions. (Both
// counts are large — 16 and 32 passes over 128 MiB there — because a few passes did not cost a few
// passes' time: 1, 2 and 4 passes took 47, 52 and 58 ms, 8, 16 and 32 took 92, 130 and 221 ms.)
type MeasuredCeilings struct {
	Key         string             `json:"key"`         // host | device config | plugin | PJRT version | GoMLX version
	Device      string             `json:"device"`      // device name
	Config      string             `json:"config"`      // device config, options included
	Model       string             `json:"model"`       // hardware model
	Host        string             `json:"host"`        // host name
	FLOPS       map[string]float64 `json:"flops"`       // best achieved FLOP/s of the large matmuls, by precision
	BytesPerSec float64            `json:"bytes_per_s"` // achieved bandwidth of the copy passes (BandwidthMethod)
	// BandwidthMethod says how BytesPerSec was read off the copy passes: "marginal" (the extra passes'
	// bytes over their extra time, bandwidthOf) or "whole: …" (one run's bytes over its time, and why).
	BandwidthMethod string `json:"bandwidth_method,omitempty"`
	// FirstTouch is what the first touch of one page of fresh memory cost (the fastest of firstTouch's
	// samples: a minor fault, the kernel zeroing and mapping the page), and PageSize that page's bytes;
	// measured on CPUs only (0 elsewhere). A CPU executable writes each large output into fresh memory
	// and pays it per page, a cost T_memory does not count (regime.Budget.FirstTouch).
	FirstTouch time.Duration `json:"first_touch_ns_per_page,omitempty"`
	PageSize   int           `json:"page_size,omitempty"`
	// Results are the measurements behind the numbers: for each ceiling workload, the best one of
	// every measurement merged (see Measurements).
	Results []results.Result `json:"results"`
	Date    time.Time        `json:"date"`       // when they were last measured
	Elapsed time.Duration    `json:"elapsed_ns"` // how long the last measuring took, compilation included
	// Measurements is how many measurements the ceilings are the best of: a disturbed one is measured
	// again after CeilingsRetry and the two merged.
	Measurements int `json:"measurements,omitempty"`
}

// Disturbed says what disturbed the measurements behind the ceilings (results.WhyDisturbed), ""
// when they were quiet. Disturbed ceilings may be too low; MeasureCeilings measures them again
// after CeilingsRetry.
func (c MeasuredCeilings) Disturbed() string { return results.WhyDisturbed(c.Results...) }

// Ridge is the measured ridge point for a precision: FLOPS[precision] / BytesPerSec, in FLOPs per byte
// (0 when unknown).
func (c MeasuredCeilings) Ridge(precision string) float64 {
	if c.BytesPerSec == 0 {
		return 0
	}
	return c.FLOPS[precision] / c.BytesPerSec
}

// FirstTouchPerByte is FirstTouch per byte of its page, in seconds (0 when not measured).
func (c MeasuredCeilings) FirstTouchPerByte() float64 {
	if c.PageSize <= 0 {
		return 0
	}
	return c.FirstTouch.Seconds() / float64(c.PageSize)
}

// String is a one-line summary.
func (c MeasuredCeilings) String() string {
	var parts []string
	for _, p := range slices.Sorted(maps.Keys(c.FLOPS)) {
		parts = append(parts, fmt.Sprintf("%.1f GFLOP/s %s", c.FLOPS[p]/1e9, p))
	}
	how := ""
	if c.BandwidthMethod == "marginal" {
		how = ", marginal"
	}
	parts = append(parts, fmt.Sprintf("%.1f GB/s copy%s", c.BytesPerSec/1e9, how))
	if c.FirstTouch > 0 {
		parts = append(parts, fmt.Sprintf("%.2f µs first touch a page", c.FirstTouch.Seconds()*1e6))
	}
	note := ""
	if why := c.Disturbed(); why != "" {
		note = fmt.Sprintf("; measured while %s: best of %d, measured again after %v", why, max(c.Measurements, 1), CeilingsRetry)
	}
	return fmt.Sprintf("%s measured ceilings: %s (%s%s)", c.Config, strings.Join(parts, ", "), c.Date.Local().Format("15:04"), note)
}

// ceilingsMethod names how the ceilings are measured; a cache kept by another method is measured again.
// "2": the bandwidth is the marginal rate of k and 2k copy passes (bandwidthOf); "3": and a CPU's
// first touch of fresh memory per page (firstTouch).
const ceilingsMethod = "3"

// ceilingKey identifies the machine and software the ceilings belong to, and the method.
func ceilingKey(dev *devices.Device) string {
	host, _ := os.Hostname()
	return strings.Join([]string{host, dev.Config, dev.Plugin, dev.PJRTVersion, results.ModuleVersion("github.com/gomlx/gomlx"), "method " + ceilingsMethod}, "|")
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
// takes a few seconds in all: matmuls of two large sizes, the compute ceiling being the better (1024
// and 2048 on xla:cpu, 512 and 1024 on the slower Go backend, 4096 and 8192 on a GPU, where bfloat16
// is measured too), and BandwidthWorkload.
func CeilingWorkloads(dev *devices.Device) []workloads.Workload {
	sizes := []int{1024, 2048}
	switch {
	case dev.IsGPU():
		sizes = []int{4096, 8192}
	case dev.Name == devices.Go:
		sizes = []int{512, 1024}
	}
	var ws []workloads.Workload
	for _, n := range sizes {
		ws = append(ws, workloads.Square(n, dtypes.Float32))
	}
	if dev.IsGPU() {
		ws = append(ws, workloads.Square(sizes[len(sizes)-1], dtypes.BFloat16))
	}
	bw := BandwidthWorkload(dev)
	double := bw
	double.Passes *= 2 // the pair bandwidthOf differences: both long enough that no loop is unrolled away
	return append(ws, bw, double)
}

// BandwidthWorkload is the bandwidth ceiling's workload on dev: x ← −x, many passes over one float32
// array inside one executable (membound.Passes, as lesson 02's memory-hierarchy sweep measures), so
// the array is read and written in place and the loop's one entry copy is spread over the passes.
// The array is well past the last-level cache: 64 MiB or four times the largest CPU cache, at most
// 512 MiB, with about 4 GiB of traffic (at least 4 passes); 1 GiB with 16 passes on a GPU (past a
// 50 MB L2 by far); 64 MiB with 4 passes on the slower Go backend.
func BandwidthWorkload(dev *devices.Device) membound.Passes {
	const mib = 1 << 20
	ws, passes := 64*mib, 4
	switch {
	case dev.IsGPU():
		ws, passes = 1024*mib, 16
	case dev.Name != devices.Go:
		ws = BeyondCaches()
		passes = max(4, (4<<30)/(2*ws))
	}
	return membound.Passes{N: ws / 4, Passes: passes, Op: "copy", Type: dtypes.Float32}
}

// BeyondCaches is a CPU working set that DRAM serves, not a cache: four times the last-level cache
// (a set twice its size still partly hits an AMD L3, which keeps the lines the cores evicted), at
// least 64 MiB and at most 512 MiB; 64 MiB when the caches are unknown. The bandwidth ceiling and
// lesson 02's memory-hierarchy sweep stream over it.
func BeyondCaches() int {
	const mib = 1 << 20
	ws := int64(64 * mib)
	if cs, err := devices.CPUCaches(); err == nil && len(cs) > 0 {
		ws = min(max(ws, 4*cs[len(cs)-1].Bytes), 512*mib)
	}
	return int(ws)
}

// ceilingWorkloadsOf is CeilingWorkloads; a test swaps in small ones.
var ceilingWorkloadsOf = CeilingWorkloads

// ceilingOptions: one warm-up, then at least 5 timed runs and 0.3 s of them: a short workload
// (the 1024² matmul) gets more samples, so its fastest one is likelier to fall in a quiet moment.
var ceilingOptions = Options{Warmup: 1, Reps: 5, MinTime: 300 * time.Millisecond}

// bandwidthOf reads the bandwidth ceiling off the copy-pass results among rs (those without FLOPs):
// the marginal rate (MarginalRate) of the two runs over the same array, k and 2k passes, when both
// are there; otherwise the best run's whole rate, and the method says why.
func bandwidthOf(rs []results.Result) (float64, string) {
	var whole float64
	var long results.Result
	byN := map[int][]results.Result{}
	for _, r := range rs {
		if r.FLOPs > 0 {
			continue
		}
		if b := best(r); b > whole {
			whole, long = b, r
		}
		byN[r.Params["n"]] = append(byN[r.Params["n"]], r)
	}
	var short results.Result
	for _, r := range byN[long.Params["n"]] {
		if p := r.Params["passes"]; p > 0 && 2*p == long.Params["passes"] {
			short = r
		}
	}
	if short.Bytes == 0 {
		return whole, "whole: one run's bytes over its time (no run of half the passes to difference)"
	}
	// The longer run of the pair (the best-rate run may be the shorter one under noise).
	for _, r := range byN[long.Params["n"]] {
		if r.Params["passes"] == 2*short.Params["passes"] {
			long = r
		}
	}
	return MarginalRate(short, long)
}

// MarginalRate is the streaming rate of two runs of the same graph over the same array, the longer
// with more passes: the extra bytes over the difference of their fastest times, which leaves out what
// each execution pays once (its launch, the loop's entry copy, the first touch of its fresh memory).
// The rate is kept within what can be read: at least the longer run's whole rate (a fixed cost is
// not negative), and only when the extra passes cost at least 20% more time and the rate is at most
// twice the whole one (else timing noise sets it); otherwise it is the longer run's whole rate, and
// method says why ("marginal" when it is the marginal rate).
func MarginalRate(short, long results.Result) (rate float64, method string) {
	whole := best(long)
	t1, t2 := short.Stats.Min.Seconds(), long.Stats.Min.Seconds()
	if t1 <= 0 || t2 < 1.2*t1 || long.Bytes <= short.Bytes {
		return whole, fmt.Sprintf("whole: %d passes took under 1.2× the time of %d, too close to difference", long.Params["passes"], short.Params["passes"])
	}
	marginal := (long.Bytes - short.Bytes) / (t2 - t1)
	switch {
	case marginal > 2*whole:
		return whole, fmt.Sprintf("whole: the marginal rate %.3g B/s was over twice the whole run's (timing noise)", marginal)
	case marginal < whole:
		return whole, "whole: the marginal rate was below the whole run's (timing noise)"
	}
	return marginal, "marginal"
}

// best is a ceiling measurement's rate at its fastest sample: FLOP/s for a matmul, else bytes/s.
func best(r results.Result) float64 {
	t := r.Stats.Min.Seconds()
	if t <= 0 {
		return 0
	}
	if r.FLOPs > 0 {
		return r.FLOPs / t
	}
	return r.Bytes / t
}

// MeasureCeilings returns dev's measured ceilings: from the cache when measured on this host, device
// config, plugin and GoMLX version within CeilingsTTL, else by running CeilingWorkloads now (about 3 s
// on a quiet 2-core xla:cpu) and caching them under results.CacheDir()/ceilings. Ceilings measured
// while other programs ran (Disturbed) are not taken as the truth: after CeilingsRetry they are
// measured again, and each ceiling keeps the better of the cached and the fresh value.
func MeasureCeilings(dev *devices.Device) (MeasuredCeilings, error) {
	cached, ok := CachedCeilings(dev)
	if ok && (cached.Disturbed() == "" || time.Since(cached.Date) < CeilingsRetry) {
		raiseModel(dev, cached)
		return cached, nil
	}
	t0 := time.Now()
	host, _ := os.Hostname()
	c := MeasuredCeilings{Key: ceilingKey(dev), Device: dev.Name, Config: dev.Config, Model: dev.Model, Host: host,
		FLOPS: map[string]float64{}, Measurements: 1}
	opt := ceilingOptions
	if dev.Name == devices.Go {
		opt.Reps = 3
	}
	for _, w := range ceilingWorkloadsOf(dev) {
		r, err := Run(dev, w, opt, false)
		if err != nil {
			return MeasuredCeilings{}, fmt.Errorf("measure: measuring the ceilings of %s: %w", dev.Name, err)
		}
		if ok { // keep the better of this and the cached measurement of the same workload
			for _, old := range cached.Results {
				if old.Label == r.Label && best(old) > best(r) {
					r = old
				}
			}
		}
		c.Results = append(c.Results, r)
	}
	if ok {
		c.Measurements += max(cached.Measurements, 1)
	}
	for _, r := range c.Results {
		if r.FLOPs > 0 {
			c.FLOPS[r.Precision] = max(c.FLOPS[r.Precision], best(r))
		}
	}
	c.BytesPerSec, c.BandwidthMethod = bandwidthOf(c.Results)
	if dev.Kind == devices.KindCPU {
		if d, ok := firstTouch(7); ok {
			c.FirstTouch, c.PageSize = d, pageSize()
		}
		if ok && cached.FirstTouch > 0 && (c.FirstTouch == 0 || cached.FirstTouch < c.FirstTouch) {
			c.FirstTouch, c.PageSize = cached.FirstTouch, cached.PageSize // the faster of the two, as for every ceiling
		}
	}
	c.Date = time.Now().UTC()
	c.Elapsed = time.Since(t0)
	raiseModel(dev, c)
	return c, results.WriteJSON(ceilingsPath(dev), c)
}

// CPUModel is the course's CPU model for facts f (devices.CPUModel), raised to the float32 ceiling
// measured on this machine's CPU device when one is cached and beat it (devices.AtLeast), as the
// device's own model is once MeasureCeilings ran: each notebook cell is its own process, so a lesson
// that prints a CPU peak reads the raise back from the cache, and every lesson prints one peak.
func CPUModel(f devices.CPUFacts) datasheet.Ceilings {
	m := devices.CPUModel(f)
	if dev, err := devices.Open(devices.CPU); err == nil {
		if c, ok := CachedCeilings(dev); ok {
			m = devices.AtLeast(m, "float32", c.FLOPS["float32"])
		}
	}
	return m
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
