package train

import (
	"math"
	"math/rand/v2"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/support/panics"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// GradLab holds a workloads.GradModel's parameters and its batch on a device, its compiled float32
// SGD step (GradModel.SGDStep) and its compiled gradients of S·loss (GradModel.ScaledGradients: S the
// loss scale, with respect to every parameter and to every layer's output, the gradients that flow
// backward through the network).
type GradLab struct {
	m      workloads.GradModel
	dev    *devices.Device
	step   *graph.Exec
	grads  *graph.Exec
	x, y   *tensors.Tensor
	params []*tensors.Tensor
	steps  int
}

// NewGradLab uploads random inputs, the teacher's targets and Xavier-initialized parameters to dev.
func NewGradLab(dev *devices.Device, m workloads.GradModel) (lab *GradLab, err error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	defer panics.Catch(&err, "train: building the gradient graphs on %s", dev.Name)
	r := rand.New(rand.NewPCG(m.Seed, 0x5eed))
	uniform := func(n int, scale float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32((2*r.Float64() - 1) * scale)
		}
		return v
	}
	// The teacher: y = tanh(x·A)·B, fixed.
	const teacherWidth = 16
	x := uniform(m.Batch*m.In, 1)
	a := uniform(m.In*teacherWidth, math.Sqrt(3/float64(m.In)))
	b := uniform(teacherWidth*m.Out, math.Sqrt(3/float64(teacherWidth)))
	y := make([]float32, m.Batch*m.Out)
	for i := 0; i < m.Batch; i++ {
		for j := 0; j < m.Out; j++ {
			s := 0.0
			for k := 0; k < teacherWidth; k++ {
				h := 0.0
				for l := 0; l < m.In; l++ {
					h += float64(x[i*m.In+l]) * float64(a[l*teacherWidth+k])
				}
				s += math.Tanh(h) * float64(b[k*m.Out+j])
			}
			y[i*m.Out+j] = float32(s)
		}
	}
	lab = &GradLab{m: m, dev: dev}
	lab.x = tensors.FromFlatDataAndDimensions(x, m.Batch, m.In)
	lab.y = tensors.FromFlatDataAndDimensions(y, m.Batch, m.Out)
	d := m.Dims()
	for i := 0; i+1 < len(d); i++ {
		lab.params = append(lab.params,
			tensors.FromFlatDataAndDimensions(uniform(d[i]*d[i+1], math.Sqrt(3/float64(d[i]))), d[i], d[i+1]),
			tensors.FromFlatDataAndDimensions(uniform(d[i+1], 0.1), 1, d[i+1]))
	}
	if lab.step, err = graph.NewExec(dev.Backend(), m.SGDStep); err != nil {
		return nil, err
	}
	if lab.grads, err = graph.NewExec(dev.Backend(), m.ScaledGradients); err != nil {
		return nil, err
	}
	return lab, nil
}

func (l *GradLab) args(scalar float32) []any {
	args := []any{l.x, l.y, tensors.FromScalar(scalar)}
	for _, p := range l.params {
		args = append(args, p)
	}
	return args
}

// Train runs steps float32 SGD steps (parameters stay on the device) and returns the last loss.
func (l *GradLab) Train(steps int, lr float64) (loss float64, err error) {
	defer panics.Catch(&err, "train: training on %s", l.dev.Name)
	var last *tensors.Tensor
	for range steps {
		outs, err := l.step.Exec(l.args(float32(lr))...)
		if err != nil {
			return 0, err
		}
		for _, p := range l.params {
			_ = p.FinalizeAll()
		}
		l.params = outs[:len(outs)-1]
		if last != nil {
			_ = last.FinalizeAll()
		}
		last = outs[len(outs)-1]
		l.steps++
	}
	if last == nil {
		return math.NaN(), nil
	}
	defer func() { _ = last.FinalizeAll() }()
	return float64(tensors.ToScalar[float32](last)), nil
}

// Steps is how many SGD steps the lab has run.
func (l *GradLab) Steps() int { return l.steps }

// Grads are the float32 gradients of S·loss, read to the host.
type Grads struct {
	Scale  float64   // the loss scale S
	Loss   float64   // the unscaled loss
	Params []float32 // ∂(S·loss)/∂(every weight and bias), concatenated
	Acts   []float32 // ∂(S·loss)/∂(every layer's output, every sample), concatenated
}

// Gradients computes the gradients of scale·loss in float32 on the device and reads them to the host.
func (l *GradLab) Gradients(scale float64) (g Grads, err error) {
	defer panics.Catch(&err, "train: gradients on %s", l.dev.Name)
	outs, err := l.grads.Exec(l.args(float32(scale))...)
	if err != nil {
		return g, err
	}
	defer func() {
		for _, o := range outs {
			_ = o.FinalizeAll()
		}
	}()
	g = Grads{Scale: scale, Loss: float64(tensors.ToScalar[float32](outs[0]))}
	np := len(l.params)
	for i, o := range outs[1:] {
		v := tensors.MustCopyFlatData[float32](o)
		if i < np {
			g.Params = append(g.Params, v...)
		} else {
			g.Acts = append(g.Acts, v...)
		}
	}
	return g, nil
}

// Close frees the device buffers.
func (l *GradLab) Close() {
	for _, t := range append([]*tensors.Tensor{l.x, l.y}, l.params...) {
		if t != nil {
			_ = t.FinalizeAll()
		}
	}
}
