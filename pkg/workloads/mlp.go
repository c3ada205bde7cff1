package workloads

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/units"
)

// Optimizer is the update rule of an MLP training step.
type Optimizer string

// Optimizers.
const (
	// SGD is plain stochastic gradient descent: p ← p − lr·g. No state.
	SGD Optimizer = "sgd"
	// Adam keeps two moments per parameter (PyTorch's torch.optim.Adam, β1 = 0.9, β2 = 0.999,
	// ε = 1e-8): m ← β1·m + (1−β1)·g, v ← β2·v + (1−β2)·g², p ← p − lr·m̂/(√v̂ + ε) with
	// m̂ = m/(1−β1ᵗ), v̂ = v/(1−β2ᵗ).
	Adam Optimizer = "adam"
)

// Adam's hyper-parameters.
const (
	AdamBeta1   = 0.9
	AdamBeta2   = 0.999
	AdamEpsilon = 1e-8
)

// MLP is one training step of a multi-layer perceptron: forward pass, mean-squared-error loss,
// backward pass (GoMLX's reverse-mode autodiff) and the optimizer update, all in one compiled graph.
//
// The layers are In → Hidden (Depth times) → Out, each y = x·W + b, with tanh between layers (smooth,
// so the float64 check has no kinks) and none after the last. Depth 0 is a linear model. The loss is
// Σ(y − target)² / (2·Batch).
//
// FLOPs count the matrix products only (bias adds, tanh, the loss and the update are O(Batch·Σdᵢ)
// and O(parameters), a few percent at the sizes lessons use):
//
//	forward  = 2·Batch·Σ dᵢ·dᵢ₊₁   (d = In, Hidden, …, Hidden, Out)
//	backward ≈ 2 × forward          (the gradient w.r.t. each layer's weights and w.r.t. its input)
//	FLOPs    = 3 × forward          (the "6·N·T" rule: 2 forward + 4 backward per parameter and sample)
//
// The exact count is 3 × forward − 2·Batch·In·Hidden: nobody needs the gradient w.r.t. the input
// batch, and autodiff does not compute it. FLOPs reports the conventional 3× so numbers match the
// papers; ExactFLOPs has the other.
//
// Parameters (and Adam's moments) are uploaded once and stay on the device: each step's outputs are
// the next step's inputs (their buffers donated, as PyTorch updates in place), and the loss stays on
// the device until Trainer.Loss reads it. For bfloat16 and float16, parameters, gradients and
// optimizer state are float32 "master" copies and only the matrix products and activations run in
// the 16-bit type (mixed precision, as torch.autocast does); float32 and float64 run in one type.
type MLP struct {
	Batch, In, Hidden, Out int          // samples per step; input, hidden-layer and output widths
	Depth                  int          // hidden layers (Depth+1 weight matrices)
	Type                   dtypes.DType // compute dtype of the matrix products and activations
	Optimizer              Optimizer    // "" picks SGD
	LR                     float64      // learning rate; 0 picks 0.01 (SGD) or 0.001 (Adam)
	Seed                   uint64       // parameter and batch seed; 0 draws a fresh one
}

// Name returns "mlp-sgd" or "mlp-adam".
func (w MLP) Name() string { return "mlp-" + string(w.optimizer()) }

// DType returns the compute dtype.
func (w MLP) DType() dtypes.DType { return w.Type }

// Params returns {"batch", "in", "hidden", "out", "depth"}.
func (w MLP) Params() map[string]int {
	return map[string]int{"batch": w.Batch, "in": w.In, "hidden": w.Hidden, "out": w.Out, "depth": w.Depth}
}

// String describes it, e.g. "mlp train step 64×(784→512×2→10) float32 adam".
// A linear model (Depth 0) reads "mlp train step 64×(784→10) float32 sgd".
func (w MLP) String() string {
	layers := fmt.Sprintf("%d→%d×%d→%d", w.In, w.Hidden, w.Depth, w.Out)
	if w.Depth == 0 {
		layers = fmt.Sprintf("%d→%d", w.In, w.Out)
	}
	return fmt.Sprintf("mlp train step %d×(%s) %s %s", w.Batch, layers, w.Type, w.optimizer())
}

func (w MLP) usesDot() bool { return true }

func (w MLP) optimizer() Optimizer {
	if w.Optimizer == "" {
		return SGD
	}
	return w.Optimizer
}

func (w MLP) lr() float64 {
	switch {
	case w.LR != 0:
		return w.LR
	case w.optimizer() == Adam:
		return 1e-3
	}
	return 1e-2
}

// Dims are the layer widths: In, Hidden (Depth times), Out.
func (w MLP) Dims() []int {
	d := []int{w.In}
	for i := 0; i < w.Depth; i++ {
		d = append(d, w.Hidden)
	}
	return append(d, w.Out)
}

// ParamType is the dtype parameters, gradients and optimizer state are kept in: float32 when Type is
// 16-bit (mixed precision), Type otherwise.
func (w MLP) ParamType() dtypes.DType {
	if w.Type.Size() < 4 {
		return dtypes.Float32
	}
	return w.Type
}

// NumParams is the number of parameters: Σ (dᵢ·dᵢ₊₁ + dᵢ₊₁), weights and biases.
func (w MLP) NumParams() int64 {
	d := w.Dims()
	var n int64
	for i := 0; i+1 < len(d); i++ {
		n += int64(d[i])*int64(d[i+1]) + int64(d[i+1])
	}
	return n
}

// ForwardFLOPs is 2·Batch·Σ dᵢ·dᵢ₊₁.
func (w MLP) ForwardFLOPs() float64 {
	d := w.Dims()
	var s float64
	for i := 0; i+1 < len(d); i++ {
		s += float64(d[i]) * float64(d[i+1])
	}
	return 2 * float64(w.Batch) * s
}

// FLOPs is 3 × ForwardFLOPs: forward plus a backward pass of about twice the forward.
func (w MLP) FLOPs() float64 { return 3 * w.ForwardFLOPs() }

// ExactFLOPs is the matrix-product FLOPs autodiff actually performs: 3 × forward − 2·Batch·In·d₁
// (no gradient w.r.t. the input batch).
func (w MLP) ExactFLOPs() float64 {
	d := w.Dims()
	return w.FLOPs() - 2*float64(w.Batch)*float64(d[0])*float64(d[1])
}

// Bytes is a lower bound on one step's memory traffic: read and write every parameter and every
// optimizer-state value once, read the batch once, and write each layer's output in the forward pass
// and read it back in the backward pass (2 × Memory().Activations). Gradients are assumed to stay in
// cache (an ideal fused kernel); a real step moves more.
func (w MLP) Bytes() float64 {
	m := w.Memory()
	return float64(2*m.Parameters + 2*m.OptimizerState + m.Batch + 2*m.Activations)
}

// Memory is what a training step holds in device memory, in bytes, computed from shapes.
type Memory struct {
	Parameters     int64 `json:"parameters"`      // weights and biases (ParamType)
	Gradients      int64 `json:"gradients"`       // one gradient per parameter (ParamType)
	OptimizerState int64 `json:"optimizer_state"` // Adam: two moments per parameter; SGD: none
	Activations    int64 `json:"activations"`     // each layer's output, kept for the backward pass (Type)
	Batch          int64 `json:"batch"`           // the input batch and its targets (Type)
}

// Total is the sum of all parts.
func (m Memory) Total() int64 {
	return m.Parameters + m.Gradients + m.OptimizerState + m.Activations + m.Batch
}

// Memory computes the memory parts of one training step from its shapes: parameters and gradients
// NumParams × ParamType size each, Adam's state twice that, activations Batch × Σᵢ₌₁ dᵢ × Type size
// (every layer's output, hidden and final), the batch Batch × (In + Out) × Type size. Temporary
// buffers of the backward pass and the 16-bit copies of weights made by mixed precision are not
// counted: it is the textbook estimate a memory lesson compares with measurements.
func (w MLP) Memory() Memory {
	ps, cs := int64(w.ParamType().Size()), int64(w.Type.Size())
	p := w.NumParams()
	m := Memory{Parameters: p * ps, Gradients: p * ps, Batch: int64(w.Batch) * int64(w.In+w.Out) * cs}
	if w.optimizer() == Adam {
		m.OptimizerState = 2 * p * ps
	}
	d := w.Dims()
	for _, di := range d[1:] {
		m.Activations += int64(w.Batch) * int64(di) * cs
	}
	return m
}

// Validate reports invalid shapes, dtypes or optimizers.
func (w MLP) Validate() error {
	if w.Batch <= 0 || w.In <= 0 || w.Out <= 0 || w.Depth < 0 || (w.Depth > 0 && w.Hidden <= 0) {
		return fmt.Errorf("workloads: an MLP needs positive Batch, In, Out (and Hidden when Depth > 0) and Depth ≥ 0, got Batch=%d In=%d Hidden=%d Out=%d Depth=%d",
			w.Batch, w.In, w.Hidden, w.Out, w.Depth)
	}
	if !w.Type.IsFloat() {
		return fmt.Errorf("workloads: an MLP needs a floating-point dtype, got %s", w.Type)
	}
	if o := w.optimizer(); o != SGD && o != Adam {
		return fmt.Errorf("workloads: unknown optimizer %q (use %q or %q)", o, SGD, Adam)
	}
	if w.LR < 0 || math.IsNaN(w.LR) {
		return fmt.Errorf("workloads: learning rate must be positive, got %g", w.LR)
	}
	return nil
}

// Prepare builds the training step on dev (see NewTrainer).
func (w MLP) Prepare(dev *devices.Device) (Instance, error) { return w.NewTrainer(dev) }

// Trainer is an MLP prepared on a device: its parameters, optimizer state and current batch live on
// the device, and each Step updates them there.
//
// A Trainer is not safe for concurrent use; Train and TrainFrom drive it from one goroutine at a time.
type Trainer struct {
	w    MLP
	dev  *devices.Device
	exec *graph.Exec

	x, y, lr *tensors.Tensor   // current batch and learning rate
	state    []*tensors.Tensor // params, then (Adam) m, v, step
	init     [][]float32       // initial parameter values, for Check

	mu    sync.Mutex
	loss  *tensors.Tensor // loss of the last step, on the device
	steps int
	err   error // sticky: a failed step leaves the state donated and gone
}

// NewTrainer uploads fresh random parameters (Xavier-uniform weights, small random biases), zero
// optimizer state and a random batch to dev, and builds the step graph (compiled on the first Step or
// by Compile).
func (w MLP) NewTrainer(dev *devices.Device) (*Trainer, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if ok, why := Supports(dev, w.Type); !ok {
		return nil, fmt.Errorf("workloads: %s on %s: %s", w, dev.Name, why)
	}
	mem := w.Memory()
	// Device: state, gradients, activations, batch, plus the new state written by the step before the
	// old is released. Host: float32 staging of the parameters and the batch.
	if err := checkFits(dev, w.String(), float64(mem.Total()+mem.Parameters+mem.OptimizerState),
		4*float64(w.NumParams())+float64(mem.Batch)*4/float64(w.Type.Size())); err != nil {
		return nil, err
	}
	t := &Trainer{w: w, dev: dev}
	seed := seedOrFresh(w.Seed)
	d := w.Dims()
	pt := w.ParamType()
	var err error
	for i := 0; i+1 < len(d); i++ {
		wv := randomFloats(d[i]*d[i+1], seed+uint64(100+2*i))
		scale := float32(math.Sqrt(3 / float64(d[i])))
		for j := range wv {
			wv[j] *= scale
		}
		bv := randomFloats(d[i+1], seed+uint64(101+2*i))
		for j := range bv {
			bv[j] *= 0.1
		}
		t.init = append(t.init, wv, bv)
	}
	if err = t.resetState(); err != nil {
		t.Close()
		return nil, err
	}
	if t.lr, err = castOnDevice(dev, []float32{float32(w.lr())}, pt); err != nil {
		t.Close()
		return nil, err
	}
	xs := randomFloats(w.Batch*w.In, seed+1)
	ys := randomFloats(w.Batch*w.Out, seed+2)
	if err = t.SetBatch(xs, ys); err != nil {
		t.Close()
		return nil, err
	}
	if t.exec, err = newExec(dev, w.Name(), t.graph); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// resetState uploads the initial parameters and zero optimizer state, freeing the current state.
func (t *Trainer) resetState() error {
	for _, s := range t.state {
		if s != nil {
			_ = s.FinalizeAll()
		}
	}
	t.state = nil
	d := t.w.Dims()
	pt := t.w.ParamType()
	dims := func(k int) []int { // dims of the k-th parameter
		if k%2 == 0 {
			return []int{d[k/2], d[k/2+1]}
		}
		return []int{1, d[k/2+1]}
	}
	for k, v := range t.init {
		p, err := castOnDevice(t.dev, v, pt, dims(k)...)
		if err != nil {
			return err
		}
		t.state = append(t.state, p)
	}
	if t.w.optimizer() == Adam {
		for range 2 {
			for k, v := range t.init {
				z, err := castOnDevice(t.dev, make([]float32, len(v)), pt, dims(k)...)
				if err != nil {
					return err
				}
				t.state = append(t.state, z)
			}
		}
		step, err := castOnDevice(t.dev, []float32{0}, pt)
		if err != nil {
			return err
		}
		t.state = append(t.state, step)
	}
	t.err = nil
	return nil
}

// graph is the training step: inputs [x, y, lr, state...], outputs [new state..., loss].
func (t *Trainer) graph(inputs []*graph.Node) []*graph.Node {
	w := t.w
	x, target, lr := inputs[0], inputs[1], inputs[2]
	state := inputs[3:]
	nParams := 2 * (len(w.Dims()) - 1)
	params := state[:nParams]
	ct, pt := w.Type, w.ParamType()

	h := x
	for l := 0; l < nParams/2; l++ {
		wl, bl := params[2*l], params[2*l+1]
		if ct != pt {
			wl, bl = graph.ConvertDType(wl, ct), graph.ConvertDType(bl, ct)
		}
		h = graph.Add(graph.MatMul(h, wl), bl)
		if l < nParams/2-1 {
			h = graph.Tanh(h)
		}
	}
	diff := graph.Sub(h, target)
	if ct != pt {
		diff = graph.ConvertDType(diff, pt)
	}
	loss := graph.DivScalar(graph.ReduceAllSum(graph.Square(diff)), 2*float64(w.Batch))
	grads := graph.Gradient(loss, params...)

	var out []*graph.Node
	switch w.optimizer() {
	case SGD:
		for i, p := range params {
			out = append(out, graph.Sub(p, graph.Mul(lr, grads[i])))
		}
	case Adam:
		ms, vs, step := state[nParams:2*nParams], state[2*nParams:3*nParams], state[3*nParams]
		step = graph.AddScalar(step, 1)
		// The bias corrections 1−βᵗ are computed in float64 (PyTorch computes them in Python's double):
		// in float32, 1 − 0.999 loses 5 digits to cancellation and every update would be off by 1e-5.
		g := x.Graph()
		step64 := graph.ConvertDType(step, dtypes.Float64)
		c1 := graph.ConvertDType(graph.OneMinus(graph.Pow(graph.Scalar(g, dtypes.Float64, AdamBeta1), step64)), pt)
		c2 := graph.ConvertDType(graph.OneMinus(graph.Pow(graph.Scalar(g, dtypes.Float64, AdamBeta2), step64)), pt)
		var newP, newM, newV []*graph.Node
		for i, p := range params {
			m := graph.Add(graph.MulScalar(ms[i], AdamBeta1), graph.MulScalar(grads[i], 1-AdamBeta1))
			v := graph.Add(graph.MulScalar(vs[i], AdamBeta2), graph.MulScalar(graph.Square(grads[i]), 1-AdamBeta2))
			mhat, vhat := graph.Div(m, c1), graph.Div(v, c2)
			upd := graph.Div(mhat, graph.AddScalar(graph.Sqrt(vhat), AdamEpsilon))
			newP = append(newP, graph.Sub(p, graph.Mul(lr, upd)))
			newM, newV = append(newM, m), append(newV, v)
		}
		out = append(append(append(newP, newM...), newV...), step)
	}
	return append(out, loss)
}

// Compile compiles the step graph for its shapes and returns how long that took.
func (t *Trainer) Compile() (time.Duration, error) {
	t0 := time.Now()
	if err := Precompile(t.exec, t.args(t.lr, false)...); err != nil {
		return 0, deviceErr(err, "compiling %s on %s", t.w, t.dev.Name)
	}
	return time.Since(t0), nil
}

// args are the step's inputs; with donate, the state's device buffers are handed to the step, which
// may reuse them for its outputs.
func (t *Trainer) args(lr *tensors.Tensor, donate bool) []any {
	args := []any{t.x, t.y, lr}
	for _, s := range t.state {
		if donate {
			d, err := graph.DonateTensorBuffer(s, t.dev.Backend(), 0)
			if err == nil {
				args = append(args, d)
				continue
			}
		}
		args = append(args, s)
	}
	return args
}

// Step runs one training step on the current batch and returns when the device has finished. The
// new parameters, optimizer state and loss stay on the device: nothing is read to the host.
func (t *Trainer) Step() error { return t.step(t.lr) }

// Run is Step, so a Trainer is an Instance that measure.Run can time.
func (t *Trainer) Run() error { return t.Step() }

func (t *Trainer) step(lr *tensors.Tensor) error {
	if t.err != nil {
		return t.err
	}
	old := t.state
	outs, err := t.exec.Exec(t.args(lr, true)...)
	if err != nil {
		t.err = deviceErr(err, "training step of %s on %s (the trainer's state is lost; make a new one)", t.w, t.dev.Name)
		return t.err
	}
	for _, s := range old {
		_ = s.FinalizeAll() // no-op for donated buffers
	}
	t.state = outs[:len(outs)-1]
	t.mu.Lock()
	if t.loss != nil {
		_ = t.loss.FinalizeAll()
	}
	t.loss = outs[len(outs)-1]
	t.steps++
	t.mu.Unlock()
	return nil
}

// Loss reads the loss of the last step to the host: a synchronization point (like PyTorch's
// loss.item()), kept apart from Step so lessons can choose when to pay it. It is an error before the
// first step.
func (t *Trainer) Loss() (float64, error) {
	t.mu.Lock()
	loss := t.loss
	t.mu.Unlock()
	if loss == nil {
		return 0, fmt.Errorf("workloads: no loss yet: run a Step first")
	}
	// Reading a fresh device tensor always copies (a tensor read twice would be served from its cache).
	v, err := toFloat64(loss)
	if err != nil {
		return 0, deviceErr(err, "reading the loss from %s", t.dev.Name)
	}
	return v[0], nil
}

// Steps is the number of steps run so far.
func (t *Trainer) Steps() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.steps
}

// Workload returns the MLP this trainer runs.
func (t *Trainer) Workload() MLP { return t.w }

// Device returns the device the trainer runs on.
func (t *Trainer) Device() *devices.Device { return t.dev }

// SetBatch uploads a new batch: x has Batch×In values, y (the targets) Batch×Out, row-major, converted
// to Type on the host. The upload is a host→device transfer; the previous batch is freed.
func (t *Trainer) SetBatch(x, y []float32) error {
	w := t.w
	if len(x) != w.Batch*w.In || len(y) != w.Batch*w.Out {
		return fmt.Errorf("workloads: a batch for %s needs %d×%d inputs and %d×%d targets, got %d and %d values",
			w, w.Batch, w.In, w.Batch, w.Out, len(x), len(y))
	}
	xt, err := castOnDevice(t.dev, x, w.Type, w.Batch, w.In)
	if err != nil {
		return err
	}
	yt, err := castOnDevice(t.dev, y, w.Type, w.Batch, w.Out)
	if err != nil {
		_ = xt.FinalizeAll()
		return err
	}
	if t.x != nil {
		_, _ = t.x.FinalizeAll(), t.y.FinalizeAll()
	}
	t.x, t.y = xt, yt
	return nil
}

// checkLR is the learning rate Check trains with: large enough that two steps move the parameters
// well above float32 rounding, so the comparison sees the gradients. Adam moves every parameter by
// about lr per step whatever its gradient, so it gets a smaller one.
func (w MLP) checkLR() float32 {
	if w.optimizer() == Adam {
		return 0.01
	}
	return 0.1
}

// Check resets the parameters to their initial values, runs two steps on the current batch with a
// check learning rate (0.1 for SGD, 0.01 for Adam), and compares with a float64 host implementation
// of the same forward pass, backward pass and optimizer: the second step's loss, and the parameters'
// total change (new − initial) for SGD or their new values for Adam (Adam's per-element normalization
// turns the rounding of near-zero gradients into full-size changes of sign, so its raw change is
// compared through the parameters). For float32 and float64 Adam's two moments are compared too.
// It returns the largest of these relative errors. Training then continues from the checked state.
//
// For bfloat16 and float16 the reference rounds every intermediate the step keeps in the 16-bit type,
// as an unfused backend does (the Go backend then agrees to 1e-7); XLA fuses and rounds less, so it
// differs by up to a few 1e-3. The moments are not compared there: they are gradients and squared
// gradients whose 16-bit rounding compounds through the layers (about 1% at depth 3), while the
// graph that computes them is the same dtype-agnostic code the float32 check validates to 1e-6.
func (t *Trainer) Check() (float64, error) {
	errs, err := t.checkParts()
	if err != nil {
		return 0, err
	}
	var worst float64
	for _, e := range errs {
		worst = max(worst, e)
	}
	return worst, nil
}

// checkParts returns the relative error of each compared quantity, by name.
func (t *Trainer) checkParts() (map[string]float64, error) {
	if err := t.resetState(); err != nil {
		return nil, err
	}
	lr32 := t.w.checkLR()
	lr, err := castOnDevice(t.dev, []float32{lr32}, t.w.ParamType())
	if err != nil {
		return nil, err
	}
	defer func() { _ = lr.FinalizeAll() }()
	for range 2 {
		if err := t.step(lr); err != nil {
			return nil, err
		}
	}
	loss, err := t.Loss()
	if err != nil {
		return nil, err
	}
	state := make([][]float64, len(t.state))
	for k := range t.state {
		if state[k], err = toFloat64(t.state[k]); err != nil {
			return nil, deviceErr(err, "reading the trainer's state from %s", t.dev.Name)
		}
	}
	x, y, err := t.hostBatch()
	if err != nil {
		return nil, err
	}
	ref := refTrain(t.w, t.init, x, y, float64(lr32), 2)
	nParams := len(t.init)
	var got, delta []float64
	for k, v := range t.init {
		for j, p := range state[k] {
			got = append(got, p)
			delta = append(delta, p-float64(v[j]))
		}
	}
	errs := map[string]float64{"loss": relErr([]float64{loss}, []float64{ref.loss})}
	if t.w.optimizer() == Adam {
		errs["params"] = relErr(got, ref.params)
	} else {
		errs["delta"] = relErr(delta, ref.delta)
	}
	if t.w.optimizer() == Adam && t.w.Type.Size() >= 4 {
		errs["m"] = relErr(slices.Concat(state[nParams:2*nParams]...), ref.m)
		errs["v"] = relErr(slices.Concat(state[2*nParams:3*nParams]...), ref.v)
	}
	return errs, nil
}

// hostBatch reads the current batch back (as the device holds it, already rounded to Type).
func (t *Trainer) hostBatch() (x, y []float64, err error) {
	if x, err = toFloat64(t.x); err != nil {
		return nil, nil, err
	}
	y, err = toFloat64(t.y)
	return x, y, err
}

// Close frees everything the trainer holds on the device.
func (t *Trainer) Close() {
	for _, s := range append(t.state, t.x, t.y, t.lr) {
		if s != nil {
			_ = s.FinalizeAll()
		}
	}
	t.state, t.x, t.y, t.lr = nil, nil, nil, nil
	t.mu.Lock()
	if t.loss != nil {
		_ = t.loss.FinalizeAll()
		t.loss = nil
	}
	t.mu.Unlock()
	if t.exec != nil {
		t.exec.Finalize()
		t.exec = nil
	}
}

// refResult is what refTrain computes, every array flattened in state order.
type refResult struct {
	loss                float64   // loss of the last step
	params, delta, m, v []float64 // final parameters, their total change, Adam's moments
}

// refTrain runs `steps` training steps of w in float64 from the given initial parameters.
func refTrain(w MLP, init [][]float32, x, y []float64, lr float64, steps int) refResult {
	d := w.Dims()
	L := len(d) - 1
	params := make([][]float64, len(init))
	for k, v := range init {
		params[k] = make([]float64, len(v))
		for j, f := range v {
			params[k][j] = float64(f)
		}
	}
	ms, vs := make([][]float64, len(params)), make([][]float64, len(params))
	for k := range params {
		ms[k], vs[k] = make([]float64, len(params[k])), make([]float64, len(params[k]))
	}
	B := w.Batch
	var loss float64
	for s := 1; s <= steps; s++ {
		// Forward: hs[l] is the input to layer l (hs[0] = x); out is the last layer's output.
		// Mixed precision: like the device, use 16-bit copies of the weights and round every
		// intermediate the device keeps in Type (a no-op for float32 and float64), so what is left to
		// compare is the arithmetic, not the rounding model.
		rt := func(v float64) float64 { return Round(v, w.Type) }
		hs := [][]float64{x}
		wc := make([][]float64, L)
		for l := 0; l < L; l++ {
			wc[l] = roundAll(params[2*l], w.Type)
			b := roundAll(params[2*l+1], w.Type)
			z := refMatMul(hs[l], wc[l], B, d[l], d[l+1])
			for r := 0; r < B; r++ {
				for j := 0; j < d[l+1]; j++ {
					v := rt(rt(z[r*d[l+1]+j]) + b[j])
					if l < L-1 {
						v = rt(math.Tanh(v))
					}
					z[r*d[l+1]+j] = v
				}
			}
			hs = append(hs, z)
		}
		out := hs[L]
		loss = 0
		dz := make([]float64, len(out))
		for i := range out {
			e := rt(out[i] - y[i])
			loss += e * e
			dz[i] = rt(e / float64(B))
		}
		loss /= 2 * float64(B)
		// Backward.
		grads := make([][]float64, len(params))
		for l := L - 1; l >= 0; l-- {
			in, n, m := hs[l], d[l], d[l+1]
			gW := make([]float64, n*m)
			gb := make([]float64, m)
			for r := 0; r < B; r++ {
				for j := 0; j < m; j++ {
					g := dz[r*m+j]
					gb[j] += g
					for i := 0; i < n; i++ {
						gW[i*m+j] += in[r*n+i] * g
					}
				}
			}
			grads[2*l], grads[2*l+1] = roundAll(gW, w.Type), roundAll(gb, w.Type)
			if l > 0 {
				W := wc[l]
				dh := make([]float64, B*n)
				for r := 0; r < B; r++ {
					for i := 0; i < n; i++ {
						var acc float64
						for j := 0; j < m; j++ {
							acc += dz[r*m+j] * W[i*m+j]
						}
						h := in[r*n+i] // tanh output of the previous layer
						dh[r*n+i] = rt(rt(acc) * rt(1-rt(h*h)))
					}
				}
				dz = dh
			}
		}
		// Update.
		for k := range params {
			for j := range params[k] {
				g := grads[k][j]
				switch w.optimizer() {
				case SGD:
					params[k][j] -= lr * g
				case Adam:
					ms[k][j] = AdamBeta1*ms[k][j] + (1-AdamBeta1)*g
					vs[k][j] = AdamBeta2*vs[k][j] + (1-AdamBeta2)*g*g
					mhat := ms[k][j] / (1 - math.Pow(AdamBeta1, float64(s)))
					vhat := vs[k][j] / (1 - math.Pow(AdamBeta2, float64(s)))
					params[k][j] -= lr * mhat / (math.Sqrt(vhat) + AdamEpsilon)
				}
			}
		}
	}
	r := refResult{loss: loss}
	for k, v := range init {
		for j := range v {
			r.params = append(r.params, params[k][j])
			r.delta = append(r.delta, params[k][j]-float64(v[j]))
		}
		r.m, r.v = append(r.m, ms[k]...), append(r.v, vs[k]...)
	}
	return r
}

// describeMemory formats a Memory as one line, for errors and examples.
func describeMemory(m Memory) string {
	parts := []string{
		"parameters " + units.BytesFixed(float64(m.Parameters)),
		"gradients " + units.BytesFixed(float64(m.Gradients)),
		"optimizer " + units.BytesFixed(float64(m.OptimizerState)),
		"activations " + units.BytesFixed(float64(m.Activations)),
		"batch " + units.BytesFixed(float64(m.Batch)),
	}
	return strings.Join(parts, ", ")
}

// String formats the parts and the total, e.g. "parameters 1.6 MiB, gradients 1.6 MiB, … = 5.0 MiB".
func (m Memory) String() string {
	return describeMemory(m) + " = " + units.BytesFixed(float64(m.Total()))
}
