package parallel

import (
	"fmt"
	"math"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/distributed"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/support/exceptions"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// DataParallel is one SGD training step of an MLP (the MLP workload's model: tanh between layers,
// loss Σ(y − target)²/(2·batch)) run two ways on one backend:
//
//   - on one device, on the whole batch;
//   - SPMD on Devices devices (GoMLX Graph.SetSPMD over a one-axis mesh "data"): each device gets
//     Batch/Devices samples and the same parameters, computes the gradient of its own mean loss,
//     and the gradients are summed across devices with AllReduce and divided by Devices, so every
//     device applies the same update to its copy of the parameters.
//
// The two give the same parameters up to float rounding (the mean of per-device means equals the
// mean over the batch when the slices are equal): CompareSteps checks it.
type DataParallel struct {
	MLP     workloads.MLP // Batch is the whole (global) batch; Optimizer must be SGD
	Devices int           // devices the batch is split over
}

// String describes it, e.g. "data-parallel ×4 over mlp train step 64×(32→64×1→8) float32 sgd".
func (w DataParallel) String() string {
	return fmt.Sprintf("data-parallel ×%d over %s", w.Devices, w.MLP)
}

// Validate checks the split and that the backend has enough devices.
func (w DataParallel) Validate(dev *devices.Device) error {
	if err := w.MLP.Validate(); err != nil {
		return err
	}
	if w.MLP.EffectiveOptimizer() != workloads.SGD {
		return fmt.Errorf("workloads: %s: the data-parallel step uses SGD", w)
	}
	if w.MLP.Type != dtypes.Float32 {
		return fmt.Errorf("workloads: %s: the data-parallel step runs in float32", w)
	}
	if w.Devices < 1 || w.MLP.Batch%w.Devices != 0 {
		return fmt.Errorf("workloads: %s: a batch of %d does not split evenly over %d devices", w, w.MLP.Batch, w.Devices)
	}
	if n := dev.Backend().NumDevices(); w.Devices > n {
		return fmt.Errorf("workloads: %s needs %d devices, %s has %d", w, w.Devices, dev.Name, n)
	}
	return nil
}

// GradientBytes is what one all-reduce moves per device: one float32 gradient per parameter.
func (w DataParallel) GradientBytes() int64 { return 4 * w.MLP.NumParams() }

// stepGraph builds loss and updated parameters from params, x, target; reduce (may be nil) turns
// local gradients and loss into global ones.
func (w DataParallel) stepGraph(params []*graph.Node, x, target *graph.Node, reduce func([]*graph.Node) []*graph.Node) []*graph.Node {
	h := x
	for i := 0; i < len(params); i += 2 {
		h = graph.Add(graph.Dot(h, params[i]).Product(), graph.ExpandAxes(params[i+1], 0))
		if i+2 < len(params) {
			h = graph.Tanh(h)
		}
	}
	diff := graph.Sub(h, target)
	localBatch := x.Shape().Dimensions[0]
	loss := graph.DivScalar(graph.ReduceAllSum(graph.Mul(diff, diff)), float64(2*localBatch))
	grads := graph.Gradient(loss, params...)
	if reduce != nil {
		all := reduce(append([]*graph.Node{loss}, grads...))
		loss, grads = all[0], all[1:]
	}
	out := []*graph.Node{loss}
	for i, p := range params {
		out = append(out, graph.Sub(p, graph.MulScalar(grads[i], w.MLP.LearningRate())))
	}
	return out
}

// paramShapes are the weight and bias shapes, layer by layer.
func (w DataParallel) paramShapes() []shapes.Shape {
	d := w.MLP.Dims()
	var s []shapes.Shape
	for i := 0; i+1 < len(d); i++ {
		s = append(s, shapes.Make(dtypes.Float32, d[i], d[i+1]), shapes.Make(dtypes.Float32, d[i+1]))
	}
	return s
}

// StepComparison is the outcome of CompareSteps.
type StepComparison struct {
	Workload       string        `json:"workload"`
	Devices        int           `json:"devices"`
	LossSingle     float64       `json:"loss_single"`   // mean loss over the batch, one device
	LossParallel   float64       `json:"loss_parallel"` // the all-reduced mean of per-device losses
	MaxRelDiff     float64       `json:"max_rel_diff"`  // largest |Δ| / max|p| over every updated parameter tensor
	Tolerance      float64       `json:"tolerance"`
	SingleTime     time.Duration `json:"single_ns"`   // one step on one device (median of a few)
	ParallelTime   time.Duration `json:"parallel_ns"` // one SPMD step on Devices devices (median of a few)
	GradientBytes  int64         `json:"gradient_bytes"`
	ParameterCount int64         `json:"parameters"`
}

// Equal reports whether the two steps agreed within tolerance.
func (c StepComparison) Equal() bool { return c.MaxRelDiff <= c.Tolerance }

// CompareSteps runs the single-device step and the SPMD step from the same parameters and batch and
// compares the updated parameters. It also times both (a few runs each, medians): on the CPU the
// "devices" share the same cores, so the times say nothing about speed-up.
func CompareSteps(dev *devices.Device, w DataParallel) (c StepComparison, err error) {
	if err := w.Validate(dev); err != nil {
		return c, err
	}
	c = StepComparison{Workload: w.String(), Devices: w.Devices, Tolerance: 1e-5,
		GradientBytes: w.GradientBytes(), ParameterCount: w.MLP.NumParams()}
	seed := w.MLP.Seed
	if seed == 0 {
		seed = 7
	}
	m := w.MLP
	ps := w.paramShapes()
	var paramVals [][]float32
	for i, s := range ps {
		v := workloads.RandomFloats(s.Size(), seed+uint64(i))
		scale := float32(1 / math.Sqrt(float64(s.Dimensions[0])))
		for j := range v {
			v[j] *= scale
		}
		paramVals = append(paramVals, v)
	}
	// Fresh tensors for each device (a tensor used on one device stays there).
	params := func() []any {
		out := make([]any, len(ps))
		for i, s := range ps {
			out[i] = tensors.FromFlatDataAndDimensions(paramVals[i], s.Dimensions...)
		}
		return out
	}
	x := workloads.RandomFloats(m.Batch*m.In, seed+100)
	y := workloads.RandomFloats(m.Batch*m.Out, seed+101)
	backend := dev.Backend()

	err = exceptions.TryCatch[error](func() {
		// One device, whole batch.
		g1 := graph.NewGraph(backend, "dp-single")
		var p1 []*graph.Node
		for i, s := range ps {
			p1 = append(p1, graph.Parameter(g1, fmt.Sprintf("p%d", i), s))
		}
		x1 := graph.Parameter(g1, "x", shapes.Make(dtypes.Float32, m.Batch, m.In))
		y1 := graph.Parameter(g1, "y", shapes.Make(dtypes.Float32, m.Batch, m.Out))
		must(g1.Compile(w.stepGraph(p1, x1, y1, nil)...))
		args1 := append(params(), tensors.FromFlatDataAndDimensions(x, m.Batch, m.In), tensors.FromFlatDataAndDimensions(y, m.Batch, m.Out))
		out1 := g1.Run(args1...)
		c.SingleTime = medianTime(3, func() { workloads.FreeAll(g1.Run(args1...)) })

		// SPMD: Devices replicas, each a slice of the batch, gradients all-reduced.
		n := w.Devices
		mesh, err := distributed.NewDeviceMesh([]int{n}, []string{"data"})
		must(err)
		gN := graph.NewGraph(backend, "dp-spmd")
		must(gN.SetSPMD(mesh))
		var pN []*graph.Node
		for i, s := range ps {
			pN = append(pN, graph.Parameter(gN, fmt.Sprintf("p%d", i), s))
		}
		local := m.Batch / n
		xN := graph.Parameter(gN, "x", shapes.Make(dtypes.Float32, local, m.In))
		yN := graph.Parameter(gN, "y", shapes.Make(dtypes.Float32, local, m.Out))
		reduce := func(vals []*graph.Node) []*graph.Node {
			sum := gN.Distributed().AllReduce(vals, compute.ReduceOpSum)
			for i := range sum {
				sum[i] = graph.DivScalar(sum[i], float64(n))
			}
			return sum
		}
		must(gN.Compile(w.stepGraph(pN, xN, yN, reduce)...))
		var argsN []any
		for r := range n {
			argsN = append(argsN, params()...)
			argsN = append(argsN,
				tensors.FromFlatDataAndDimensions(x[r*local*m.In:(r+1)*local*m.In], local, m.In),
				tensors.FromFlatDataAndDimensions(y[r*local*m.Out:(r+1)*local*m.Out], local, m.Out))
		}
		outN := gN.Run(argsN...)
		c.ParallelTime = medianTime(3, func() { workloads.FreeAll(gN.Run(argsN...)) })

		c.LossSingle = float64(tensors.ToScalar[float32](out1[0]))
		c.LossParallel = float64(tensors.ToScalar[float32](outN[0]))
		per := len(ps) + 1
		for r := range n { // every replica must hold the same parameters as the single-device step
			for i := 1; i < per; i++ {
				a, _ := tensors.CopyFlatData[float32](out1[i])
				b, _ := tensors.CopyFlatData[float32](outN[r*per+i])
				c.MaxRelDiff = math.Max(c.MaxRelDiff, relDiff(a, b))
			}
		}
		workloads.FreeAll(out1)
		workloads.FreeAll(outN)
	})
	if err != nil {
		return c, workloads.DeviceErr(err, "%s", w)
	}
	return c, nil
}

// AllReduceTime times summing a float32 vector of n values across devicesN devices of dev with
// AllReduce (GoMLX SPMD), inputs already on their devices: reps timed runs after a warm-up.
func AllReduceTime(dev *devices.Device, devicesN, n, reps int) (samples []time.Duration, err error) {
	if nd := dev.Backend().NumDevices(); devicesN < 2 || devicesN > nd {
		return nil, fmt.Errorf("workloads: an all-reduce over %d devices needs 2…%d devices (what %s has)", devicesN, nd, dev.Name)
	}
	if err := workloads.CheckFits(dev, "all-reduce", float64(3*4*n*devicesN), 0); err != nil {
		return nil, err
	}
	err = exceptions.TryCatch[error](func() {
		mesh, err := distributed.NewDeviceMesh([]int{devicesN}, []string{"data"})
		must(err)
		g := graph.NewGraph(dev.Backend(), "allreduce")
		must(g.SetSPMD(mesh))
		x := graph.Parameter(g, "x", shapes.Make(dtypes.Float32, n))
		must(g.Compile(g.Distributed().AllReduceOne(x, compute.ReduceOpSum)))
		var args []any
		for r := range devicesN {
			t := tensors.FromFlatDataAndDimensions(workloads.RandomFloats(n, uint64(r+1)), n)
			must(t.MaterializeOnDevice(dev.Backend(), false, compute.DeviceNum(r)))
			args = append(args, t)
		}
		workloads.FreeAll(g.Run(args...))
		for range reps {
			t0 := time.Now()
			workloads.FreeAll(g.Run(args...))
			samples = append(samples, time.Since(t0))
		}
	})
	if err != nil {
		return nil, workloads.DeviceErr(err, "all-reduce of %d float32 over %d devices", n, devicesN)
	}
	return samples, nil
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// medianTime times fn reps times and returns the median time (units.Median).
func medianTime(reps int, fn func()) time.Duration {
	ts := make([]time.Duration, reps)
	for i := range ts {
		t0 := time.Now()
		fn()
		ts[i] = time.Since(t0)
	}
	return units.Median(ts)
}

func relDiff(a, b []float32) float64 {
	var maxAbs, maxDiff float64
	for i := range a {
		maxAbs = math.Max(maxAbs, math.Abs(float64(a[i])))
		if i < len(b) {
			maxDiff = math.Max(maxDiff, math.Abs(float64(a[i])-float64(b[i])))
		}
	}
	if len(a) != len(b) {
		return math.Inf(1)
	}
	if maxAbs == 0 {
		return maxDiff
	}
	return maxDiff / maxAbs
}
