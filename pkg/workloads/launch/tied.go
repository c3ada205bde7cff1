package launch

import (
	"fmt"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"math"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// TiedForward is the forward pass of a tiny float32 MLP whose Layers layers share one Width×Width
// weight matrix W and one bias b (tied weights): h ← tanh(h·W + b), Layers times, on a Batch×Width
// input. It is the launch-bound experiment's workload: run as one executable per operation (a matmul,
// a bias add and a tanh per layer, 3·Layers calls: what an eager framework launches, one kernel each)
// or as one executable for the whole pass (Fused: what XLA makes of a compiled step). Because the
// weights are tied, every call of either version passes the same few arguments, so the two differ
// only in the number of calls.
//
// FLOPs = Layers·(2·Batch·Width² + 2·Batch·Width): the matmul, plus one FLOP per element for the bias
// add and one for the tanh.
// Bytes (float32): fused 4·(2·Batch·Width + Width² + Width), the input, W and b read once and the
// output written once; unfused 4·Layers·(6·Batch·Width + Width² + Width), since each of the three
// executables of a layer reads its inputs from memory and writes its output back.
type TiedForward struct {
	Batch, Width, Layers int
	Fused                bool
	Seed                 uint64 // input and weight seed; 0 is a fixed one
}

// tiedSeed is the seed of TiedForward's input and weights when Seed is 0.
const tiedSeed = 16

// tiedScale scales the random weights and bias, keeping tanh away from saturation.
const tiedScale = 0.3

// Name returns "mlp-forward" (it is an MLP's forward pass; Params tell it from MLPForward's).
func (w TiedForward) Name() string { return "mlp-forward" }

// String is e.g. "16-layer MLP forward, batch 1, width 16: one executable per op".
func (w TiedForward) String() string {
	how := "one executable per op"
	if w.Fused {
		how = "one fused executable"
	}
	return fmt.Sprintf("%d-layer MLP forward, batch %d, width %d: %s", w.Layers, w.Batch, w.Width, how)
}

// DType is float32.
func (w TiedForward) DType() dtypes.DType { return dtypes.Float32 }

// Calls is the number of executable calls of one forward pass: 3·Layers, or 1 fused.
func (w TiedForward) Calls() int {
	if w.Fused {
		return 1
	}
	return 3 * w.Layers
}

// Params are calls (Calls), layers, width and batch.
func (w TiedForward) Params() map[string]int {
	return map[string]int{"calls": w.Calls(), "layers": w.Layers, "width": w.Width, "batch": w.Batch}
}

// FLOPs is Layers·(2·Batch·Width² + 2·Batch·Width).
func (w TiedForward) FLOPs() float64 {
	b, n := float64(w.Batch), float64(w.Width)
	return float64(w.Layers) * (2*b*n*n + 2*b*n)
}

// Bytes is 4·(2·Batch·Width + Width² + Width) fused, 4·Layers·(6·Batch·Width + Width² + Width)
// unfused.
func (w TiedForward) Bytes() float64 {
	b, n := float64(w.Batch), float64(w.Width)
	if w.Fused {
		return 4 * (2*b*n + n*n + n)
	}
	return 4 * float64(w.Layers) * (6*b*n + n*n + n)
}

// Validate reports sizes that are not positive.
func (w TiedForward) Validate() error {
	if w.Batch <= 0 || w.Width <= 0 || w.Layers <= 0 {
		return fmt.Errorf("workloads: tied forward pass needs Batch, Width and Layers > 0, got %d, %d, %d", w.Batch, w.Width, w.Layers)
	}
	return nil
}

// Reference is the forward pass in float64 on the host, from x (Batch×Width), W (Width×Width) and b
// (Width), all row-major: what Check compares the device's output with.
func (w TiedForward) Reference(x, wt, b []float64) []float64 {
	n := w.Width
	h := append([]float64(nil), x...)
	next := make([]float64, len(h))
	for range w.Layers {
		for r := range w.Batch {
			for j := range n {
				s := b[j]
				for k := range n {
					s += h[r*n+k] * wt[k*n+j]
				}
				next[r*n+j] = math.Tanh(s)
			}
		}
		h, next = next, h
	}
	return h
}

// Prepare uploads a random input, W and b to dev and builds the executables: one (Fused) or the
// three of a layer (matmul, bias add, tanh), which Run calls Layers times each.
func (w TiedForward) Prepare(dev *devices.Device) (workloads.Instance, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	n := w.Width
	if err := workloads.CheckFits(dev, w.String(), w.Bytes(), 4*float64(w.Batch*n+n*n+n)); err != nil {
		return nil, err
	}
	seed := w.Seed
	if seed == 0 {
		seed = tiedSeed
	}
	x := workloads.RandomFloats(w.Batch*n, seed)
	wt, b := workloads.RandomFloats(n*n, seed+1), workloads.RandomFloats(n, seed+2)
	for _, v := range [][]float32{wt, b} {
		for i := range v {
			v[i] *= tiedScale
		}
	}
	ins, err := workloads.UploadAll(dev, dtypes.Float32, []workloads.HostInput{{Values: x, Dims: []int{w.Batch, n}}, {Values: wt, Dims: []int{n, n}}, {Values: b, Dims: []int{1, n}}})
	if err != nil {
		return nil, err
	}
	t := &tiedInstance{w: w, name: w.String() + " on " + dev.Name,
		x: ins[0].(*tensors.Tensor), wt: ins[1].(*tensors.Tensor), b: ins[2].(*tensors.Tensor),
		want: w.Reference(workloads.RoundTo(x, dtypes.Float32), workloads.RoundTo(wt, dtypes.Float32), workloads.RoundTo(b, dtypes.Float32))}
	if err := t.build(dev); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

type tiedInstance struct {
	w                     TiedForward
	name                  string
	x, wt, b              *tensors.Tensor
	fused                 *graph.Exec // Fused: the whole pass
	matmul, add, tanhExec *graph.Exec // unfused: one layer's three operations
	want                  []float64
}

// build makes the executables of t's version.
func (t *tiedInstance) build(dev *devices.Device) (err error) {
	if t.w.Fused {
		layers := t.w.Layers
		t.fused, err = workloads.NewExec(dev, "tied_forward", func(h, wt, b *graph.Node) *graph.Node {
			for range layers {
				h = graph.Tanh(graph.Add(graph.MatMul(h, wt), b))
			}
			return h
		})
		return err
	}
	if t.matmul, err = workloads.NewExec(dev, "tied_matmul", func(h, wt *graph.Node) *graph.Node { return graph.MatMul(h, wt) }); err != nil {
		return err
	}
	if t.add, err = workloads.NewExec(dev, "tied_add", func(h, b *graph.Node) *graph.Node { return graph.Add(h, b) }); err != nil {
		return err
	}
	t.tanhExec, err = workloads.NewExec(dev, "tied_tanh", func(h *graph.Node) *graph.Node { return graph.Tanh(h) })
	return err
}

func (t *tiedInstance) Compile() (time.Duration, error) {
	t0 := time.Now()
	var err error
	if t.w.Fused {
		err = workloads.Precompile(t.fused, t.x, t.wt, t.b)
	} else if err = workloads.Precompile(t.matmul, t.x, t.wt); err == nil {
		if err = workloads.Precompile(t.add, t.x, t.b); err == nil {
			err = workloads.Precompile(t.tanhExec, t.x)
		}
	}
	if err != nil {
		return 0, workloads.DeviceErr(err, "compiling %s", t.name)
	}
	return time.Since(t0), nil
}

// run executes one forward pass (Calls executables) and returns its output (the caller frees it).
func (t *tiedInstance) run() (*tensors.Tensor, error) {
	return workloads.RunSequence(t.x, t.w.Calls(), t.name, func(i int, h *tensors.Tensor) ([]*tensors.Tensor, error) {
		switch {
		case t.w.Fused:
			return t.fused.Exec(h, t.wt, t.b)
		case i%3 == 0:
			return t.matmul.Exec(h, t.wt)
		case i%3 == 1:
			return t.add.Exec(h, t.b)
		}
		return t.tanhExec.Exec(h)
	})
}

func (t *tiedInstance) Run() error { return workloads.RunFreed(t.run) }

func (t *tiedInstance) Check() (float64, error) {
	return workloads.CheckRun(t.run, func() []float64 { return t.want })
}

func (t *tiedInstance) Close() {
	for _, e := range []*graph.Exec{t.fused, t.matmul, t.add, t.tanhExec} {
		if e != nil {
			e.Finalize()
		}
	}
	for _, x := range []*tensors.Tensor{t.x, t.wt, t.b} {
		if x != nil {
			_ = x.FinalizeAll()
		}
	}
}
