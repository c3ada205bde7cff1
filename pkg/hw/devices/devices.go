package devices

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/go-xla/compute/xla"
	"github.com/gomlx/go-xla/pjrt"

	"github.com/gpu-course/whygpu/pkg/hw/cgroup"
	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/support/panics"

	// Registers the "xla" and "go" backends.
	_ "github.com/gomlx/gomlx/backends/default"
)

// Stable names of the devices the course knows.
const (
	CPU  = "xla:cpu"  // XLA CPU PJRT plugin
	CUDA = "xla:cuda" // XLA CUDA PJRT plugin on an NVIDIA GPU
	Go   = "go"       // GoMLX's pure-Go backend
)

// CUDANoTF32 opens the CUDA device with TF32 off: float32 matrix products then run in true float32
// (IEEE single precision on the CUDA cores) instead of on the tensor cores in TF32 (10-bit mantissa).
// [CUDA] has TF32 on, go-xla's default. The two are separate PJRT clients on the same GPU; Device.TF32
// says which one a result came from.
const CUDANoTF32 = CUDA + ",tf32=false"

// CPUAsync opens the CPU device with the XLA CPU client's asynchronous execution on (the plugin's
// default): every call is handed to the plugin's thread pool and the caller waits for its completion
// event. [CPU] turns it off ("asynchronous": false, a client option of the plugin), so a call runs on
// the calling thread; go-xla waits for every execution anyway, so only the hand-off and the two thread
// wake-ups per call go away — on a 2-core machine most of the runtime's fixed cost per call (README,
// "Where a call's time goes"). Large executables still spread their work over the intra-op threads.
const CPUAsync = CPU + ",asynchronous=true"

// CPUSplit opens the CPU plugin as four devices ("devices=N" sets the plugin's client option
// cpu_device_count), the plugin's own default, for lesson 10's data-parallel step, which splits its
// batch over them. [CPU] opens one device: the plugin sizes its intra-op thread pool as the larger of
// the cores and the devices, so four devices bring four pool threads even on two cores, which spin
// between the parallel pieces of a step, while one device brings one per core — the shape of JAX's CPU
// client. Measured by `whygpu bench` on a quiet 2-core machine (2026-12-01, others 0–1%): one device
// was as fast on matmuls (1024³ 211 vs 198 GFLOP/s, 2048³ 202 vs 199) and faster at the batch-256
// training step (219 vs 288 µs) and the 8192×4096 layernorm (5.2 vs 3.6 GB/s) — README, "Where a step's
// time goes". `whygpu bench` times this configuration too, as the old default.
const CPUSplit = CPU + ",devices=4"

// Names lists the device names in the order lessons show them.
var Names = []string{CPU, CUDA, Go}

// Kind says whether a device is a CPU or a GPU.
type Kind string

// Kinds of device.
const (
	KindCPU Kind = "cpu"
	KindGPU Kind = "gpu"
)

// Device is an opened compute device: a GoMLX backend and a description of the hardware behind it.
type Device struct {
	Name        string             `json:"name"`                   // stable name: CPU, CUDA or Go
	Config      string             `json:"config,omitempty"`       // what Open was given, options included, e.g. "xla:cuda,tf32=false"
	TF32        bool               `json:"tf32,omitempty"`         // float32 matrix products run in TF32 on tensor cores
	Kind        Kind               `json:"kind"`                   // cpu or gpu
	Model       string             `json:"model"`                  // e.g. "AMD EPYC 9R14 (2 cores)", "NVIDIA H200 (141 GiB)"
	Cores       int                `json:"cores,omitempty"`        // CPU cores the backend may use; 0 for a GPU
	MemoryBytes uint64             `json:"memory_bytes,omitempty"` // host RAM for CPUs, device memory for GPUs
	Plugin      string             `json:"plugin,omitempty"`       // PJRT plugin path (empty for "go")
	PJRTVersion string             `json:"pjrt_version,omitempty"` // PJRT C API version the plugin reports, "0.106"
	Ceilings    datasheet.Ceilings `json:"ceilings"`               // datasheet or model ceilings

	backend compute.Backend
}

// RaisePeak raises the model peak for dtype to measured when the model is below it (AtLeast), under
// the package's lock: a Device is shared by every caller in the process, so two goroutines measuring
// ceilings at once must not write Ceilings at the same time.
func (d *Device) RaisePeak(dtype string, measured float64) {
	mu.Lock()
	defer mu.Unlock()
	d.Ceilings = AtLeast(d.Ceilings, dtype, measured)
}

// Backend returns the GoMLX backend to build and run graphs on this device.
func (d *Device) Backend() compute.Backend { return d.backend }

// IsGPU reports whether the device is a GPU.
func (d *Device) IsGPU() bool { return d.Kind == KindGPU }

// String returns "name: model", with "(TF32 off)" for a CUDA device opened with [CUDANoTF32].
func (d *Device) String() string {
	if d.Name == CUDA && !d.TF32 {
		return fmt.Sprintf("%s (TF32 off): %s", d.Name, d.Model)
	}
	return fmt.Sprintf("%s: %s", d.Name, d.Model)
}

// Status says whether a device can be opened here and, if not, what to do about it.
type Status struct {
	Name      string // device name
	Available bool   // a plugin (and for CUDA a GPU) is present
	Detail    string // plugin path, or why it is unavailable
	Fix       string // the exact fix when unavailable ("" when there is nothing to fix)
}

var (
	mu     sync.Mutex
	opened = map[string]*Device{}
	failed = map[string]error{} // the last open error of each config that did not open
)

// PluginDirs returns the directories searched for PJRT plugins ($PJRT_PLUGIN_LIBRARY_PATH).
func PluginDirs() []string {
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv("PJRT_PLUGIN_LIBRARY_PATH")) {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// pluginFile is the file name go-xla looks for, e.g. pjrt_c_api_cpu_plugin.so.
func pluginFile(platform string) string { return "pjrt_c_api_" + platform + "_plugin.so" }

// FindPlugin returns the path of the PJRT plugin for a platform ("cpu" or "cuda") in PluginDirs.
func FindPlugin(platform string) (string, bool) {
	for _, d := range PluginDirs() {
		p := filepath.Join(d, pluginFile(platform))
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}

// HasNVIDIAGPU reports whether this machine exposes an NVIDIA GPU (/dev/nvidia0 or NVML).
func HasNVIDIAGPU() bool {
	if _, err := os.Stat("/dev/nvidia0"); err == nil {
		return true
	}
	return len(gpuInfos()) > 0
}

const setupFix = "run `make setup` (scripts/setup.sh) in the course checkout, then restart the kernel"

// Probe reports, without opening anything, which devices can be opened here.
func Probe() []Status {
	var out []Status
	if p, ok := FindPlugin("cpu"); ok {
		out = append(out, Status{Name: CPU, Available: true, Detail: p})
	} else {
		out = append(out, Status{Name: CPU, Detail: missingPluginDetail("cpu"), Fix: setupFix})
	}
	gpu := HasNVIDIAGPU()
	p, ok := FindPlugin("cuda")
	switch {
	case gpu && ok:
		out = append(out, Status{Name: CUDA, Available: true, Detail: p})
	case gpu:
		out = append(out, Status{Name: CUDA, Detail: "an NVIDIA GPU is present but " + missingPluginDetail("cuda"),
			Fix: "run `scripts/setup.sh --cuda` (installs jax-cuda13-pjrt and NVIDIA's cu13 wheels), then restart the kernel"})
	default:
		out = append(out, Status{Name: CUDA, Detail: "no NVIDIA GPU on this machine (lessons show a GPU recording where one exists, else the course's GPU model as a labeled band)"})
	}
	out = append(out, Status{Name: Go, Available: true, Detail: "GoMLX pure-Go backend (compiled in)"})
	return out
}

func missingPluginDetail(platform string) string {
	dirs := PluginDirs()
	if len(dirs) == 0 {
		return fmt.Sprintf("%s not found: PJRT_PLUGIN_LIBRARY_PATH is not set", pluginFile(platform))
	}
	return fmt.Sprintf("%s not found in PJRT_PLUGIN_LIBRARY_PATH=%s", pluginFile(platform), strings.Join(dirs, ":"))
}

// Open opens the named device (CPU, CUDA or Go), once per process; later calls return the same Device.
// A missing plugin or GPU gives an error that names the fix.
//
// An XLA device name may carry go-xla backend options after commas, e.g. [CUDANoTF32]
// ("xla:cuda,tf32=false"); each distinct config is its own Device (and PJRT client). The CUDA device is
// always opened with preallocate=false unless the config says otherwise, so memory measurements mean
// something (a preallocating client grabs 75% of the GPU at start).
func Open(name string) (*Device, error) {
	mu.Lock()
	defer mu.Unlock()
	if d, ok := opened[name]; ok {
		return d, nil
	}
	d, err := open(name)
	if err != nil {
		failed[name] = err
		return nil, err
	}
	delete(failed, name)
	opened[name] = d
	return d, nil
}

func open(config string) (*Device, error) {
	// Never let go-xla download plugins at run time: the set-up installs them from PyPI. go-xla reads
	// GOMLX_NO_AUTO_INSTALL only in its init, so switch auto-install off explicitly as well, for
	// programs started without that variable (e.g. the record binary on a GPU machine).
	xla.EnableAutoInstall(false)
	name, options, _ := strings.Cut(config, ",")
	switch name {
	case CPU, CUDA:
		platform := strings.TrimPrefix(name, "xla:")
		path, ok := FindPlugin(platform)
		if !ok {
			for _, s := range Probe() {
				if s.Name == name {
					return nil, fmt.Errorf("devices: cannot open %s: %s; fix: %s", name, s.Detail, orDefault(s.Fix, setupFix))
				}
			}
		}
		if name == CUDA && !HasNVIDIAGPU() {
			return nil, fmt.Errorf("devices: cannot open %s: no NVIDIA GPU on this machine", name)
		}
		backendConfig := "xla:" + platform
		if options != "" {
			backendConfig += "," + options
		}
		if name == CUDA && !strings.Contains(options, "preallocate") {
			backendConfig += ",preallocate=false"
		}
		var b compute.Backend
		var err error
		if name == CPU {
			b, err = newCPUBackend(options)
		} else {
			b, err = newBackend(backendConfig)
		}
		if err != nil {
			return nil, fmt.Errorf("devices: opening %s with plugin %s failed: %w", config, path, err)
		}
		d := &Device{Name: name, Config: config, Plugin: path, backend: b}
		if xb, ok := b.(*xla.Backend); ok {
			d.TF32 = xb.DotGeneralUseTF32
		}
		if plugin, err := pjrt.GetPlugin(platform); err == nil {
			major, minor := plugin.Version()
			d.PJRTVersion = fmt.Sprintf("%d.%d", major, minor)
		}
		if name == CPU {
			describeCPU(d)
		} else {
			describeGPU(d)
		}
		return d, nil
	case Go:
		if options != "" {
			return nil, fmt.Errorf("devices: the Go backend takes no options, got %q", config)
		}
		b, err := newBackend("go")
		if err != nil {
			return nil, fmt.Errorf("devices: opening the Go backend failed: %w", err)
		}
		d := &Device{Name: Go, Config: Go, backend: b}
		describeCPU(d)
		d.Ceilings = goBackendCeilings(d.Ceilings)
		return d, nil
	}
	return nil, fmt.Errorf("devices: unknown device %q (known: %s)", config, strings.Join(Names, ", "))
}

// newCPUBackend opens the XLA CPU plugin with the client option "asynchronous" (false unless the
// options say asynchronous=true; see [CPUAsync]) and cpu_device_count 1, or N with devices=N (see
// [CPUSplit]); other options go to go-xla as in a GOMLX_BACKEND string.
func newCPUBackend(options string) (b compute.Backend, err error) {
	defer panics.Catch(&err, "")
	opts := pjrt.NamedValuesMap{"asynchronous": false, "cpu_device_count": int64(1)}
	config := "cpu"
	for _, o := range strings.Split(options, ",") {
		switch k, v, _ := strings.Cut(o, "="); {
		case o == "":
		case k == "asynchronous":
			async, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("devices: asynchronous=%q is not a boolean", v)
			}
			opts["asynchronous"] = async
		case k == "devices":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("devices: devices=%q is not a positive number of CPU devices", v)
			}
			opts["cpu_device_count"] = n
		default:
			config += "," + o
		}
	}
	return xla.NewWithOptions(config, opts)
}

// newBackend opens a GoMLX backend, turning a panic inside it into an error.
func newBackend(config string) (b compute.Backend, err error) {
	defer panics.Catch(&err, "")
	return compute.NewWithConfig(config)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// OpenAll opens every device available here, in Names order. Devices that fail to open are reported
// in the error (errors.Join of each device's error, so errors.Is and errors.As see them) but do not
// stop the others.
func OpenAll() ([]*Device, error) { return openWhere(func(string) bool { return true }) }

// Accelerated opens the XLA devices available here (xla:cpu, and xla:cuda when present), the ones
// lessons race against each other. The Go backend is left out: open it by name for contrasts.
//
// With no device opened it returns an error. When some opened and another available one did not (a
// GPU whose plugin fails to open), it returns the opened devices together with that device's error,
// which is also kept for [GPUFailure]: callers go on with the devices that opened, and display shows
// [GPUFailureNote] wherever the GPU lane would have been.
func Accelerated() ([]*Device, error) {
	devs, err := openWhere(func(name string) bool { return name != Go })
	if len(devs) == 0 {
		if err == nil {
			err = errors.New("none is available")
		}
		return nil, fmt.Errorf("devices: no XLA device could be opened: %w", err)
	}
	return devs, err
}

var (
	gpuMu      sync.Mutex
	gpuChecked bool  // gpuErr is known for this process
	gpuErr     error // why the GPU found here gives no live lane
)

// GPUFailure reports why an NVIDIA GPU found on this machine gives no live xla:cuda lane: nil when
// there is no GPU here or xla:cuda opens. A GPU without its plugin, or whose plugin fails to open,
// gives an error saying so. It opens xla:cuda (once per process, like Open) to find out.
func GPUFailure() error {
	gpuMu.Lock()
	defer gpuMu.Unlock()
	if !gpuChecked {
		gpuErr = gpuFailure(HasNVIDIAGPU(), Probe(), func() error { _, err := Open(CUDA); return err })
		gpuChecked = true
	}
	return gpuErr
}

// KnownGPUFailure is GPUFailure as far as this process knows without opening anything: the error
// of an xla:cuda open that failed here (through Open, Accelerated or GPUFailure), else nil. Display
// calls it for every chart and table.
func KnownGPUFailure() error {
	gpuMu.Lock()
	defer gpuMu.Unlock()
	if gpuChecked {
		return gpuErr
	}
	mu.Lock()
	err := failed[CUDA]
	mu.Unlock()
	if err != nil && HasNVIDIAGPU() {
		return err
	}
	return nil
}

// SimulateGPUFailure makes GPUFailure and KnownGPUFailure report err (nil: a GPU that opened) until
// undo is called: for tests of the code that shows the failure, on machines without a broken GPU.
func SimulateGPUFailure(err error) (undo func()) {
	gpuMu.Lock()
	defer gpuMu.Unlock()
	checked, old := gpuChecked, gpuErr
	gpuChecked, gpuErr = true, err
	return func() {
		gpuMu.Lock()
		defer gpuMu.Unlock()
		gpuChecked, gpuErr = checked, old
	}
}

// gpuFailure is GPUFailure given whether a GPU is here, the probe and how to open xla:cuda.
func gpuFailure(hasGPU bool, probe []Status, open func() error) error {
	if !hasGPU {
		return nil
	}
	for _, s := range probe {
		if s.Name == CUDA && !s.Available {
			return fmt.Errorf("%s; fix: %s", s.Detail, orDefault(s.Fix, setupFix))
		}
	}
	return open()
}

// GPUFailureNote is the line shown wherever the GPU lane appears when err (from GPUFailure) is not
// nil: "GPU found but it failed to open: <err> — showing <instead>"; "" for a nil err.
func GPUFailureNote(err error, instead string) string {
	if err == nil {
		return ""
	}
	return fmt.Sprintf("GPU found but it failed to open: %v — showing %s", err, instead)
}

// openWhere opens the available devices whose name want accepts, in Names order, and joins the
// errors of those that fail.
func openWhere(want func(name string) bool) ([]*Device, error) {
	var devs []*Device
	var errs []error
	for _, s := range Probe() {
		if !s.Available || !want(s.Name) {
			continue
		}
		d, err := Open(s.Name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		devs = append(devs, d)
	}
	return devs, errors.Join(errs...)
}

// Default opens the device lessons use by default: xla:cuda when a GPU and its plugin are present,
// otherwise xla:cpu.
func Default() (*Device, error) {
	for _, s := range Probe() {
		if s.Name == CUDA && s.Available {
			if d, err := Open(CUDA); err == nil {
				return d, nil
			}
		}
	}
	return Open(CPU)
}

// NumCPU is the number of CPUs this process may use at once: the CPUs of its seat's cpuset and its CPU
// quota rounded down (cgroup.CPULimit.Cores), never more than runtime.NumCPU. On a 32-core server a
// 2-core seat gets 2, so thread counts and the CPU ceiling are the seat's, not the host's.
func NumCPU() int { return cpuLimit().Cores(runtime.NumCPU()) }

// CPULimit is the seat's CPU limit NumCPU is read from (for labels: where the core count came from).
func CPULimit() cgroup.CPULimit { return cpuLimit() }

var cpuLimit = sync.OnceValue(cgroup.ReadCPULimit)
