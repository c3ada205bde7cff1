// Package workloads holds the GoMLX graphs the course measures. Each one runs unchanged on every
// device (xla:cpu, xla:cuda, go), reports the FLOPs it performs and the minimum bytes it must move to
// and from device memory, and checks its own result against a float64 reference computed on the host.
//
// A Workload describes the experiment (shapes, dtype); Prepare builds it on a device and uploads its
// inputs, outside any timed region; the Instance it returns compiles once and then runs repeatedly,
// with inputs and outputs resident on the device.
package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/dtypes/bfloat16"
	"github.com/gomlx/compute/dtypes/float16"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/devices"
)

// Workload is one experiment with fixed shapes.
type Workload interface {
	// Name is the workload's kind, e.g. "matmul".
	Name() string
	// String describes it with its shapes, e.g. "matmul 1024×1024 @ 1024×1024 float32".
	String() string
	// DType is the element type the arithmetic runs in.
	DType() dtypes.DType
	// Params are the shape parameters, for provenance and charts (e.g. {"m":1024,"k":1024,"n":1024}).
	Params() map[string]int
	// FLOPs is the number of floating-point operations of one run.
	FLOPs() float64
	// Bytes is the minimum traffic to and from device memory of one run: inputs read once, outputs
	// written once.
	Bytes() float64
	// Prepare builds the workload on a device and uploads its inputs. Nothing here is timed.
	Prepare(dev *devices.Device) (Instance, error)
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

// Tolerance is the relative error Check may show for a dtype: f64 1e-12, f32 1e-5, bf16/f16 1e-2.
func Tolerance(dt dtypes.DType) float64 {
	switch dt {
	case dtypes.Float64:
		return 1e-12
	case dtypes.Float32:
		return 1e-5
	default:
		return 1e-2
	}
}

// Supports reports whether a device can run arithmetic in dtype dt, with the reason when it cannot.
// The pure-Go backend has no float16 arithmetic; the XLA CPU plugin emulates bf16/f16 (converts to f32).
func Supports(dev *devices.Device, dt dtypes.DType) (bool, string) {
	if dev.Name == devices.Go && dt == dtypes.Float16 {
		return false, "the pure-Go backend has no float16 arithmetic; use xla:cpu or xla:cuda"
	}
	return true, ""
}

// randomFloats returns n values uniform in [-1, 1) from a seeded source (never zeros, never the same
// twice across seeds).
func randomFloats(n int, seed uint64) []float32 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]float32, n)
	for i := range out {
		out[i] = r.Float32()*2 - 1
	}
	return out
}

// roundTo rounds float32 values to what dtype dt can represent, so the host reference sees the same
// inputs the device does.
func roundTo(x []float32, dt dtypes.DType) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		switch dt {
		case dtypes.BFloat16:
			out[i] = float64(bf16Round(v))
		case dtypes.Float16:
			out[i] = float64(f16Round(v))
		default:
			out[i] = float64(v)
		}
	}
	return out
}

func bf16Round(v float32) float32 {
	b := math.Float32bits(v)
	b += 0x7FFF + (b>>16)&1 // round to nearest even
	return math.Float32frombits(b &^ 0xFFFF)
}

func f16Round(v float32) float32 {
	// float16 has 10 mantissa bits; values here are in [-1,1), far from its range limits.
	if v == 0 {
		return 0
	}
	e := math.Floor(math.Log2(math.Abs(float64(v))))
	e = math.Max(e, -14) // subnormals below 2^-14
	q := math.Ldexp(1, int(e)-10)
	return float32(math.RoundToEven(float64(v)/q) * q)
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
		return nil, fmt.Errorf("workloads: uploading %s to %s: %w", t.Shape(), dev.Name, err)
	}
	return t, nil
}

// freeAll releases outputs without reading them back.
func freeAll(ts []*tensors.Tensor) {
	for _, t := range ts {
		if t != nil {
			_ = t.FinalizeAll()
		}
	}
}

// execInstance is the common Instance for workloads that are a single graph.Exec over fixed inputs.
type execInstance struct {
	exec   *graph.Exec
	inputs []any
	check  func(outs []*tensors.Tensor) (float64, error)
}

func (e *execInstance) Compile() (time.Duration, error) {
	t0 := time.Now()
	if err := e.exec.PreCompile(e.inputs...); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

func (e *execInstance) Run() error {
	outs, err := e.exec.Exec(e.inputs...)
	if err != nil {
		return err
	}
	freeAll(outs)
	return nil
}

func (e *execInstance) Check() (float64, error) {
	outs, err := e.exec.Exec(e.inputs...)
	if err != nil {
		return 0, err
	}
	defer freeAll(outs)
	return e.check(outs)
}

func (e *execInstance) Close() {
	for _, in := range e.inputs {
		if t, ok := in.(*tensors.Tensor); ok {
			_ = t.FinalizeAll()
		}
	}
	e.exec.Finalize()
}

// newExec wraps graph.NewExec, turning a panic into an error.
func newExec[F graph.ExecGraphFn](dev *devices.Device, name string, fn F) (e *graph.Exec, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("workloads: building %s on %s: %v", name, dev.Name, r)
		}
	}()
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

// castOnDevice builds a tensor of dtype dt from float32 values and uploads it to dev.
func castOnDevice(dev *devices.Device, x []float32, dt dtypes.DType, dims ...int) (*tensors.Tensor, error) {
	t, err := hostTensor(x, dt, dims...)
	if err != nil {
		return nil, err
	}
	return onDevice(dev, t)
}
