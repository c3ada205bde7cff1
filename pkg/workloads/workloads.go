package workloads

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/dtypes/bfloat16"
	"github.com/gomlx/compute/dtypes/float16"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/panics"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Workload is what every caller needs of one experiment with fixed shapes: what it is and how to
// build it on a device. What else a workload knows it says through the optional interfaces Counter
// (its FLOPs and bytes), Typed (its dtype) and Shaped (its shape parameters), which the helpers
// FLOPsOf, BytesOf, DTypeOf and ParamsOf read with a type assertion (as gonum/plot's Plotter and
// its DataRanger). Every workload of this package implements all three.
type Workload interface {
	// Name is the workload's kind, e.g. "matmul": results are filed under it.
	Name() string
	// String describes it with its shapes, e.g. "matmul 1024×1024 @ 1024×1024 float32".
	String() string
	// Prepare builds the workload on a device and uploads its inputs. Nothing here is timed.
	Prepare(dev *devices.Device) (Instance, error)
}

// Counter is something that knows its work from a formula (in its doc comment): a workload, or a
// model the course only counts (GPT, GradModel).
type Counter interface {
	// FLOPs is the number of floating-point operations of one run.
	FLOPs() float64
	// Bytes is the minimum traffic to and from device memory of one run: inputs read once, outputs
	// written once.
	Bytes() float64
}

// Typed is a workload whose arithmetic runs in one element type.
type Typed interface {
	DType() dtypes.DType
}

// Shaped is a workload with shape parameters, for provenance and charts (e.g.
// {"m":1024,"k":1024,"n":1024}).
type Shaped interface {
	Params() map[string]int
}

// FLOPsOf is w's FLOPs when it is a Counter, else 0 (unknown).
func FLOPsOf(w Workload) float64 {
	if c, ok := w.(Counter); ok {
		return c.FLOPs()
	}
	return 0
}

// BytesOf is w's minimum bytes when it is a Counter, else 0 (unknown).
func BytesOf(w Workload) float64 {
	if c, ok := w.(Counter); ok {
		return c.Bytes()
	}
	return 0
}

// DTypeOf is w's element type when it is Typed, else dtypes.InvalidDType (unknown: no peak, the
// loosest tolerance).
func DTypeOf(w Workload) dtypes.DType {
	if t, ok := w.(Typed); ok {
		return t.DType()
	}
	return dtypes.InvalidDType
}

// ParamsOf is w's shape parameters when it is Shaped, else nil.
func ParamsOf(w Workload) map[string]int {
	if s, ok := w.(Shaped); ok {
		return s.Params()
	}
	return nil
}

// Instance is a workload prepared on one device.
type Instance interface {
	// Compile compiles the graph for its shapes and returns how long that took.
	Compile() (time.Duration, error)
	// Run executes once and returns when the device has finished. Outputs stay on the device and are
	// freed; nothing is read back to the host.
	Run() error
	// Check runs once more, reads the result to the host and returns its relative error (L2 norm of
	// the difference over L2 norm of the reference) against a float64 reference.
	Check() (relErr float64, err error)
	// Close frees the inputs on the device.
	Close()
}

// Tolerance is the relative error Check may show for a dtype: f64 1e-12, f32 1e-5, bf16/f16 1e-2,
// int8 (Int8MatMul's exact integer sums) 0.
// Use [ToleranceOf] for a workload on a device: it knows about TF32.
func Tolerance(dt dtypes.DType) float64 {
	switch dt {
	case dtypes.Float64:
		return 1e-12
	case dtypes.Float32:
		return 1e-5
	case dtypes.Int8:
		return 0
	default:
		return 1e-2
	}
}

// TF32 is the precision name of float32 matrix products run on tensor cores in TF32 (8-bit exponent,
// 10-bit mantissa, float32 accumulation). It is also the key of the TF32 entry of datasheet.Ceilings.
const TF32 = "tf32"

// Precision is the arithmetic precision w actually runs in on dev: its [DTypeName] ("float32",
// "bfloat16", ...; "" when w is not Typed), or [TF32] for a float32 workload dominated by matrix
// products on a device with TF32 on (xla:cuda by default, see devices.CUDANoTF32). It is the key to
// the device's peak FLOP/s in datasheet.Ceilings.
func Precision(dev *devices.Device, w Workload) string {
	dt := DTypeOf(w)
	if dev.TF32 && dt == dtypes.Float32 && usesDot(w) {
		return TF32
	}
	return DTypeName(dt)
}

// DTypeName is a dtype's name as results and ceilings spell it: GoMLX's in lower case ("float32",
// "bfloat16"), "" for dtypes.InvalidDType (a workload that is not Typed).
func DTypeName(dt dtypes.DType) string {
	if dt == dtypes.InvalidDType {
		return ""
	}
	return strings.ToLower(dt.String())
}

// ToleranceOf is the relative error w's Check may show on dev: [Tolerance] of its dtype, or 1e-2
// when its matrix products run in TF32 (10-bit mantissa, like float16).
func ToleranceOf(dev *devices.Device, w Workload) float64 {
	if Precision(dev, w) == TF32 {
		return 1e-2
	}
	return Tolerance(DTypeOf(w))
}

// usesDot reports whether w's FLOPs are in matrix products (which TF32 affects).
func usesDot(w Workload) bool {
	d, ok := w.(interface{ usesDot() bool })
	return ok && d.usesDot()
}

// Supports reports whether a device can run arithmetic in dtype dt, with the reason when it cannot.
// It asks the backend's own capability table (compute.Capabilities.DTypes), so it stays true to the
// GoMLX version in use: in compute v0.1.2 the pure-Go backend has float16 and bfloat16 (in software)
// but no float8. go-xla v0.4.1's table omits float16, which the XLA compiler and its CPU and CUDA
// plugins do run (this package's tests check it against float64), so float16 is allowed on XLA devices.
func Supports(dev *devices.Device, dt dtypes.DType) (bool, string) {
	if dev.Backend() == nil {
		return false, "the device is not open"
	}
	if dev.Backend().Capabilities().DTypes[dt] || (dt == dtypes.Float16 && dev.Name != devices.Go) {
		return true, ""
	}
	return false, fmt.Sprintf("the %s backend has no %s arithmetic", dev.Name, dt)
}

// ErrOutOfMemory is wrapped by every error that says a workload does not fit in a device's memory,
// whether found before allocating (from its shapes) or reported by the device; test with errors.Is.
var ErrOutOfMemory = errors.New("out of memory")

// Headroom is the share of a device's (or the host's) available memory the course lets one workload
// plan to use, from its shapes, before refusing it with ErrOutOfMemory. The rest is left for what
// shapes do not count: the runtime and its compiled temporaries (XLA's temp buffers), the
// allocator's fragmentation and, on the CPU devices, everything else the machine runs. 0.8 rather
// than 0.9 because the memory lesson teaches budgeting with this one number (its "80% of available"
// line) and because a refusal costs nothing while a real out-of-memory on the CPU devices can get the
// kernel killed instead of returning an error.
const Headroom = 0.8

// CheckFits returns an ErrOutOfMemory error when deviceBytes (plus hostBytes of staging on the host)
// cannot fit in what dev and the host have available. For the CPU devices both come out of host RAM.
// It runs before anything is allocated, so a too-large workload is an error value, never a killed
// process.
func CheckFits(dev *devices.Device, what string, deviceBytes, hostBytes float64) error {
	const slack = Headroom
	host := float64(devices.HostAvailableMemory())
	if dev.IsGPU() {
		if avail := float64(dev.AvailableMemory()); avail > 0 && deviceBytes > slack*avail {
			return fmt.Errorf("workloads: %s needs %s of GPU memory on %s, only %s is free: %w",
				what, units.BytesFixed(deviceBytes), dev.Name, units.BytesFixed(avail), ErrOutOfMemory)
		}
		if host > 0 && hostBytes > slack*host {
			return fmt.Errorf("workloads: %s needs %s of host memory to stage its inputs, only %s is available (%s): %w",
				what, units.BytesFixed(hostBytes), units.BytesFixed(host), devices.HostMemoryLimit(), ErrOutOfMemory)
		}
		return nil
	}
	if need := deviceBytes + hostBytes; host > 0 && need > slack*host {
		return fmt.Errorf("workloads: %s needs %s of memory on %s (device buffers and host staging), only %s is available (%s): %w",
			what, units.BytesFixed(need), dev.Name, units.BytesFixed(host), devices.HostMemoryLimit(), ErrOutOfMemory)
	}
	return nil
}

// IsOutOfMemoryMessage reports whether a device's error says it ran out of memory: PJRT's
// RESOURCE_EXHAUSTED, CUDA's "out of memory", an allocator's "failed to allocate". It is the course's
// one classifier of device errors; errors it accepts are wrapped with ErrOutOfMemory.
func IsOutOfMemoryMessage(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"resource_exhausted", "out of memory", "failed to allocate", "allocation failed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// DeviceError wraps an error from the device as "pkg: what: err" (what formatted from format and
// args), marking allocation failures (IsOutOfMemoryMessage) with ErrOutOfMemory. nil stays nil.
func DeviceError(pkg string, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	if IsOutOfMemoryMessage(err) {
		return fmt.Errorf(pkg+": "+format+": %w (%w)", append(args, ErrOutOfMemory, err)...)
	}
	return fmt.Errorf(pkg+": "+format+": %w", append(args, err)...)
}

// DeviceErr is DeviceError for this package's errors.
func DeviceErr(err error, format string, args ...any) error {
	return DeviceError("workloads", err, format, args...)
}

// RandomFloats returns n values uniform in [-1, 1) from a seeded source (never zeros, never the same
// twice across seeds).
func RandomFloats(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]float32, n)
	for i := range out {
		out[i] = r.Float32()*2 - 1
	}
	return out
}

// relErr is ||got-want|| / ||want||.
func relErr(got, want []float64) float64 {
	var num, den float64
	for i := range want {
		d := got[i] - want[i]
		num += d * d
		den += want[i] * want[i]
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

// onDevice uploads a host tensor to the device (outside any timed region).
func onDevice(dev *devices.Device, t *tensors.Tensor) (*tensors.Tensor, error) {
	if err := t.MaterializeOnDevice(dev.Backend(), false, 0); err != nil {
		return nil, DeviceErr(err, "uploading %s to %s", t.Shape(), dev.Name)
	}
	t.FinalizeLocal() // the host copy is no longer needed: the device holds the data
	return t, nil
}

// FreeAll releases outputs without reading them back.
func FreeAll(ts []*tensors.Tensor) {
	for _, t := range ts {
		if t != nil {
			_ = t.FinalizeAll()
		}
	}
}

// execInstance is the common Instance for workloads that are a single graph.Exec over fixed inputs.
// Run calls the compiled executable with the inputs' device buffers (see direct), and Check checks
// that same path: it reads the outputs of one direct call (TestDirectAgreesWithExec checks they are
// graph.Exec's).
type execInstance struct {
	name   string // workload description, for errors
	exec   *graph.Exec
	inputs []any
	check  func(outs []*tensors.Tensor) (float64, error)

	call *direct          // nil until compiled
	bufs []compute.Buffer // the inputs' device buffers (owned by the input tensors)
}

func (e *execInstance) Compile() (time.Duration, error) {
	t0 := time.Now()
	if err := e.compile(); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// compile compiles the graph for the inputs' shapes (once) and collects their device buffers.
func (e *execInstance) compile() error {
	if e.call != nil {
		return nil
	}
	argShapes := make([]shapes.Shape, len(e.inputs))
	bufs := make([]compute.Buffer, len(e.inputs))
	for i, in := range e.inputs {
		t, ok := in.(*tensors.Tensor)
		if !ok {
			return fmt.Errorf("workloads: compiling %s: input #%d is a %T, not a tensor", e.name, i, in)
		}
		b, err := t.Backend()
		if err != nil {
			return DeviceErr(err, "compiling %s", e.name)
		}
		d, err := t.Device()
		if err != nil {
			return DeviceErr(err, "compiling %s", e.name)
		}
		if bufs[i], err = t.Buffer(b, d); err != nil {
			return DeviceErr(err, "compiling %s", e.name)
		}
		argShapes[i] = t.Shape()
	}
	call, err := compileDirect(e.exec, make([]bool, len(e.inputs)), argShapes...) // nothing donated
	if err != nil {
		return DeviceErr(err, "compiling %s", e.name)
	}
	e.call, e.bufs = call, bufs
	return nil
}

func (e *execInstance) Run() error {
	if err := e.compile(); err != nil {
		return err
	}
	outs, err := e.call.call(e.bufs)
	if err != nil {
		return DeviceErr(err, "running %s", e.name)
	}
	finalizeBuffers(outs)
	return nil
}

func (e *execInstance) Check() (float64, error) {
	outs, err := e.directOutputs()
	if err != nil {
		return 0, err
	}
	defer FreeAll(outs)
	return e.check(outs)
}

// directOutputs runs the timed path (one direct call) and returns its outputs as tensors, which the
// caller frees.
func (e *execInstance) directOutputs() ([]*tensors.Tensor, error) {
	if err := e.compile(); err != nil {
		return nil, err
	}
	bufs, err := e.call.call(e.bufs)
	if err != nil {
		return nil, DeviceErr(err, "running %s", e.name)
	}
	outs := make([]*tensors.Tensor, len(bufs))
	for i, b := range bufs {
		if outs[i], err = tensors.FromBuffer(b); err != nil {
			FreeAll(outs)
			finalizeBuffers(bufs[i:])
			return nil, DeviceErr(err, "reading the outputs of %s", e.name)
		}
	}
	return outs, nil
}

func (e *execInstance) Close() {
	e.call, e.bufs = nil, nil
	e.freeInputs()
	e.exec.Finalize()
}

// freeInputs releases the inputs' device buffers.
func (e *execInstance) freeInputs() {
	for _, in := range e.inputs {
		if t, ok := in.(*tensors.Tensor); ok {
			_ = t.FinalizeAll()
		}
	}
}

// Precompile builds and compiles exec's graph for the shapes of args (tensors, as they will be passed to
// Exec) without running it, so a timed region never includes compilation. It stands in for GoMLX
// v0.28.1's Exec.PreCompile, which v0.28.2 replaced by Exec.Compile(shapes...).
func Precompile(exec *graph.Exec, args ...any) error {
	argShapes := make([]shapes.Shape, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case *tensors.Tensor:
			argShapes[i] = v.Shape()
		case shapes.Shape:
			argShapes[i] = v
		default:
			return fmt.Errorf("workloads: precompiling %s: argument #%d is a %T, not a tensor", exec.Name(), i, a)
		}
	}
	_, err := exec.Compile(argShapes...)
	return err
}

// NewExec wraps graph.NewExec, turning a panic into an error.
func NewExec[F graph.ExecGraphFn](dev *devices.Device, name string, fn F) (e *graph.Exec, err error) {
	defer panics.Catch(&err, "workloads: building %s on %s", name, dev.Name)
	e, err = graph.NewExec(dev.Backend(), fn)
	if err != nil {
		return nil, fmt.Errorf("workloads: building %s on %s: %w", name, dev.Name, err)
	}
	return e.WithName(name), nil
}

// toFloat64 reads a tensor (any float dtype) to the host as float64 values.
func toFloat64(t *tensors.Tensor) ([]float64, error) {
	var out []float64
	err := t.ConstFlatData(func(flat any) {
		switch v := flat.(type) {
		case []float64:
			out = append([]float64(nil), v...)
		case []float32:
			out = make([]float64, len(v))
			for i, x := range v {
				out[i] = float64(x)
			}
		case []bfloat16.BFloat16:
			out = make([]float64, len(v))
			for i, x := range v {
				out[i] = float64(x.Float32())
			}
		case []float16.Float16:
			out = make([]float64, len(v))
			for i, x := range v {
				out[i] = float64(x.Float32())
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, fmt.Errorf("workloads: unexpected output dtype %s", t.DType())
	}
	return out, nil
}

// hostTensor builds a host tensor of dtype dt from float32 values (converting on the host).
func hostTensor(x []float32, dt dtypes.DType, dims ...int) (*tensors.Tensor, error) {
	switch dt {
	case dtypes.Float32:
		return tensors.FromFlatDataAndDimensions(x, dims...), nil
	case dtypes.Float64:
		v := make([]float64, len(x))
		for i, f := range x {
			v[i] = float64(f)
		}
		return tensors.FromFlatDataAndDimensions(v, dims...), nil
	case dtypes.BFloat16:
		v := make([]bfloat16.BFloat16, len(x))
		for i, f := range x {
			v[i] = bfloat16.FromFloat32(f)
		}
		return tensors.FromFlatDataAndDimensions(v, dims...), nil
	case dtypes.Float16:
		v := make([]float16.Float16, len(x))
		for i, f := range x {
			v[i].SetFloat32(f)
		}
		return tensors.FromFlatDataAndDimensions(v, dims...), nil
	}
	return nil, fmt.Errorf("workloads: unsupported dtype %s", dt)
}

// CastOnDevice builds a tensor of dtype dt from float32 values and uploads it to dev.
func CastOnDevice(dev *devices.Device, x []float32, dt dtypes.DType, dims ...int) (*tensors.Tensor, error) {
	t, err := hostTensor(x, dt, dims...)
	if err != nil {
		return nil, err
	}
	return onDevice(dev, t)
}
