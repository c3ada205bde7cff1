package workloads

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// Trainer is an MLP prepared on a device: its parameters, optimizer state and current batch live on
// the device, and each Step updates them there.
//
// A Trainer is not safe for concurrent use; pkg/workloads/train's loops drive it from one goroutine at a time.
type Trainer struct {
	w    MLP
	dev  *devices.Device
	exec *graph.Exec

	x, y, lr *tensors.Tensor  // current batch and learning rate
	fixed    []compute.Buffer // x, y and lr's device buffers (owned by the tensors), the step's first arguments
	state    []compute.Buffer // params, then (Adam) m, v, step: device buffers the trainer owns
	init     [][]float32      // initial parameter values, for Check
	call     *direct          // the compiled step, called with device buffers (nil until compiled)

	mu    sync.Mutex
	loss  compute.Buffer // loss of the last step, on the device
	steps int
	err   error // sticky: a failed step leaves the state donated and gone
}

// NewTrainer uploads fresh random parameters (Xavier-uniform weights, small random biases), zero
// EffectiveOptimizer state and a random batch to dev, and builds the step graph (compiled on the first Step or
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
	if err := CheckFits(dev, w.String(), float64(mem.Total()+mem.Parameters+mem.OptimizerState),
		4*float64(w.NumParams())+float64(mem.Batch)*4/float64(w.Type.Size())); err != nil {
		return nil, err
	}
	t := &Trainer{w: w, dev: dev}
	seed := SeedOrFresh(w.Seed)
	pt := w.ParamType()
	var err error
	t.init = w.initParams(seed)
	if err = t.resetState(); err != nil {
		t.Close()
		return nil, err
	}
	if t.lr, err = CastOnDevice(dev, []float32{float32(w.LearningRate())}, pt); err != nil {
		t.Close()
		return nil, err
	}
	xs := RandomFloats(w.Batch*w.In, seed+1)
	ys := RandomFloats(w.Batch*w.Out, seed+2)
	if err = t.SetBatch(xs, ys); err != nil {
		t.Close()
		return nil, err
	}
	if t.exec, err = NewExec(dev, w.Name(), t.graph); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

// resetState uploads the initial parameters and zero optimizer state, freeing the current state.
func (t *Trainer) resetState() error {
	finalizeBuffers(t.state)
	t.state = nil
	d := t.w.Dims()
	pt := t.w.ParamType()
	dims := func(k int) []int { // dims of the k-th parameter
		if k%2 == 0 {
			return []int{d[k/2], d[k/2+1]}
		}
		return []int{1, d[k/2+1]}
	}
	add := func(v []float32, dims ...int) error {
		p, err := CastOnDevice(t.dev, v, pt, dims...)
		if err != nil {
			return err
		}
		b, err := takeBuffer(p)
		if err != nil {
			return DeviceErr(err, "uploading the state of %s to %s", t.w, t.dev.Name)
		}
		t.state = append(t.state, b)
		return nil
	}
	for k, v := range t.init {
		if err := add(v, dims(k)...); err != nil {
			return err
		}
	}
	if t.w.EffectiveOptimizer() == Adam {
		for range 2 {
			for k, v := range t.init {
				if err := add(make([]float32, len(v)), dims(k)...); err != nil {
					return err
				}
			}
		}
		if err := add([]float32{0}); err != nil {
			return err
		}
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
	switch w.EffectiveOptimizer() {
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
			p, m, v := AdamUpdate(p, grads[i], ms[i], vs[i], lr, c1, c2)
			newP, newM, newV = append(newP, p), append(newM, m), append(newV, v)
		}
		out = append(append(append(newP, newM...), newV...), step)
	}
	return append(out, loss)
}

// Compile compiles the step graph for its shapes and returns how long that took.
func (t *Trainer) Compile() (time.Duration, error) {
	t0 := time.Now()
	if err := t.compile(); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// compile compiles the step (once) for the current shapes: inputs [x, y, lr, state...], the state
// donated — handed to the step, which may reuse its buffers for the new state.
func (t *Trainer) compile() error {
	if t.call != nil {
		return nil
	}
	argShapes, err := t.argShapes()
	if err != nil {
		return err
	}
	donate := make([]bool, len(argShapes))
	for i := len(t.fixed); i < len(donate); i++ {
		donate[i] = true
	}
	if t.call, err = compileDirect(t.exec, donate, argShapes...); err != nil {
		return DeviceErr(err, "compiling %s on %s", t.w, t.dev.Name)
	}
	return nil
}

// argShapes are the shapes of the step's inputs, [x, y, lr, state...].
func (t *Trainer) argShapes() ([]shapes.Shape, error) {
	out := []shapes.Shape{t.x.Shape(), t.y.Shape(), t.lr.Shape()}
	for _, s := range t.state {
		sh, err := s.Shape()
		if err != nil {
			return nil, DeviceErr(err, "reading the state of %s on %s", t.w, t.dev.Name)
		}
		out = append(out, sh)
	}
	return out, nil
}

// Step runs one training step on the current batch and returns when the device has finished. The
// new parameters, optimizer state and loss stay on the device: nothing is read to the host.
func (t *Trainer) Step() error { return t.step(nil) }

// Run is Step, so a Trainer is an Instance that measure.Run can time.
func (t *Trainer) Run() error { return t.Step() }

// step runs the compiled step with learning rate lr (nil: the trainer's own) through the backend's
// executable directly (see direct): the state's buffers are donated, the outputs become the new state.
func (t *Trainer) step(lr compute.Buffer) error {
	if t.err != nil {
		return t.err
	}
	if err := t.compile(); err != nil {
		return err
	}
	fixed := t.fixed
	if lr != nil {
		fixed = []compute.Buffer{t.fixed[0], t.fixed[1], lr}
	}
	outs, err := t.call.call(fixed, t.state)
	if err != nil {
		t.state = nil // donated: gone whatever the outcome
		t.err = DeviceErr(err, "training step of %s on %s (the trainer's state is lost; make a new one)", t.w, t.dev.Name)
		return t.err
	}
	t.state = outs[:len(outs)-1]
	t.mu.Lock()
	if t.loss != nil {
		_ = t.loss.Finalize()
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
	defer t.mu.Unlock() // a Step meanwhile would free the buffer being read
	if t.loss == nil {
		return 0, fmt.Errorf("workloads: no loss yet: run a Step first")
	}
	v, err := bufferToFloat64(t.loss) // always a copy from the device
	if err != nil {
		return 0, DeviceErr(err, "reading the loss from %s", t.dev.Name)
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
	xt, err := CastOnDevice(t.dev, x, w.Type, w.Batch, w.In)
	if err != nil {
		return err
	}
	yt, err := CastOnDevice(t.dev, y, w.Type, w.Batch, w.Out)
	if err != nil {
		_ = xt.FinalizeAll()
		return err
	}
	xb, err1 := xt.Buffer(t.dev.Backend(), 0)
	yb, err2 := yt.Buffer(t.dev.Backend(), 0)
	if err := errors.Join(err1, err2); err != nil {
		_, _ = xt.FinalizeAll(), yt.FinalizeAll()
		return DeviceErr(err, "uploading a batch of %s to %s", w, t.dev.Name)
	}
	if t.x != nil {
		_, _ = t.x.FinalizeAll(), t.y.FinalizeAll()
	}
	t.x, t.y = xt, yt
	t.fixed = append(t.fixed[:0], xb, yb)
	if t.lr != nil {
		lb, err := t.lr.Buffer(t.dev.Backend(), 0)
		if err != nil {
			return DeviceErr(err, "uploading the learning rate to %s", t.dev.Name)
		}
		t.fixed = append(t.fixed, lb)
	}
	return nil
}

// checkLR is the learning rate Check trains with: large enough that two steps move the parameters
// well above float32 rounding, so the comparison sees the gradients. Adam moves every parameter by
// about lr per step whatever its gradient, so it gets a smaller one.
func (w MLP) checkLR() float32 {
	if w.EffectiveOptimizer() == Adam {
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
	lr, err := CastOnDevice(t.dev, []float32{lr32}, t.w.ParamType())
	if err != nil {
		return nil, err
	}
	defer func() { _ = lr.FinalizeAll() }()
	lrb, err := lr.Buffer(t.dev.Backend(), 0)
	if err != nil {
		return nil, DeviceErr(err, "uploading the check learning rate to %s", t.dev.Name)
	}
	for range 2 {
		if err := t.step(lrb); err != nil {
			return nil, err
		}
	}
	loss, err := t.Loss()
	if err != nil {
		return nil, err
	}
	state := make([][]float64, len(t.state))
	for k := range t.state {
		if state[k], err = bufferToFloat64(t.state[k]); err != nil {
			return nil, DeviceErr(err, "reading the trainer's state from %s", t.dev.Name)
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
	if t.w.EffectiveOptimizer() == Adam {
		errs["params"] = relErr(got, ref.params)
	} else {
		errs["delta"] = relErr(delta, ref.delta)
	}
	if t.w.EffectiveOptimizer() == Adam && t.w.Type.Size() >= 4 {
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
	finalizeBuffers(t.state)
	for _, s := range []*tensors.Tensor{t.x, t.y, t.lr} {
		if s != nil {
			_ = s.FinalizeAll()
		}
	}
	t.state, t.fixed, t.x, t.y, t.lr = nil, nil, nil, nil, nil
	t.call = nil // its executable belongs to exec
	t.mu.Lock()
	if t.loss != nil {
		_ = t.loss.Finalize()
		t.loss = nil
	}
	t.mu.Unlock()
	if t.exec != nil {
		t.exec.Finalize()
		t.exec = nil
	}
}
