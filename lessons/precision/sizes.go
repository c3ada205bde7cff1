package precision

import (
	"fmt"
	"slices"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// MatMuls is a matmul the learner writes in a cell: its side and the element types to time it in.
type MatMuls struct {
	N      int      // side of the n×n matmul
	DTypes []string // "float64", "float32", "bfloat16", "float16"
}

// MaxMatMulN is the largest side a cell may ask for: 2·4096³ ≈ 1.4·10¹¹ FLOPs, a second or two per
// timed sample on a laptop in float64.
const MaxMatMulN = 4096

// Validate says why a matmul is refused: a side out of range, no element type, or one that is not
// among the lesson's (dtypes.MapOfNames spells them).
func (m MatMuls) Validate() error {
	if m.N < 1 || m.N > MaxMatMulN {
		return fmt.Errorf("%s: side %d refused before anything is allocated: use 1…%d (a %d×%d float64 matmul is already %.3g FLOPs and %.3g GB of operands)",
			Lesson, m.N, MaxMatMulN, MaxMatMulN, MaxMatMulN, 2*float64(MaxMatMulN)*MaxMatMulN*MaxMatMulN, 3*8*float64(MaxMatMulN)*MaxMatMulN/1e9)
	}
	if len(m.DTypes) == 0 {
		return fmt.Errorf("%s: give at least one element type", Lesson)
	}
	for _, name := range m.DTypes {
		if dt, ok := dtypes.MapOfNames[name]; !ok || !slices.Contains(DTypes, dt) {
			return fmt.Errorf("%s: element type %q refused: use float64, float32, bfloat16 or float16", Lesson, name)
		}
	}
	return nil
}

// MaxSoftwareN is the largest side the Go-backend contrast may ask for: its float16 is done in
// software (at 512 one float16 matmul took ≈0.27 s and the three types ≈3 s in all on a shared
// 2-core machine, 2026-12-01).
const MaxSoftwareN = 512

// DefaultSoftware is the Go-backend contrast of the lesson: the source's numpy example, a 128×128
// matmul in float64, float32 and float16.
var DefaultSoftware = MatMuls{N: 128, DTypes: []string{"float64", "float32", "float16"}}

// ValidateSoftware says why a Go-backend matmul is refused: what Validate refuses, or a side over
// MaxSoftwareN (pure Go, float16 in software).
func (m MatMuls) ValidateSoftware() error {
	if m.N > MaxSoftwareN {
		return fmt.Errorf("%s: side %d refused on the Go backend before anything is allocated: use 1…%d (pure Go, float16 in software: at %d the cell already takes seconds)",
			Lesson, m.N, MaxSoftwareN, MaxSoftwareN)
	}
	return m.Validate()
}

// MatMulsHere times the learner's matmul in each of its element types on every XLA device here,
// checked against float64 like the lesson's sweep (which it is, at a side and types from the cell).
// A type a device cannot run is an error that says why.
func MatMulsHere(m MatMuls) ([]results.Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return experiments.LiveOnEachDevice(func(d *devices.Device) ([]results.Result, error) {
		var out []results.Result
		for _, name := range m.DTypes {
			dt := dtypes.MapOfNames[name]
			if ok, why := workloads.Supports(d, dt); !ok {
				return out, fmt.Errorf("%s: %s cannot run %s: %s", Lesson, d.Name, name, why)
			}
			r, err := timeMatMul(d, m.N, dt)
			if err != nil {
				return out, err
			}
			out = append(out, r)
		}
		return out, nil
	})
}

// DefaultDTypes is the lesson's throughput sweep at scale s: every type in DTypes at side 512 on a
// laptop, 8192 on a GPU (what `whygpu record` measures; a cell may ask for at most MaxMatMulN).
func DefaultDTypes(s experiments.Scale) MatMuls {
	var names []string
	for _, dt := range DTypes {
		names = append(names, dt.String())
	}
	return MatMuls{N: experiments.Pick(s, 512, 8192), DTypes: names}
}

// types is m's element types, known to be valid (Validate).
func (m MatMuls) types() []dtypes.DType {
	var out []dtypes.DType
	for _, name := range m.DTypes {
		out = append(out, dtypes.MapOfNames[name])
	}
	return out
}

// GradStudy is the gradient census the learner writes in a cell: the float32 MLP trained by SGD
// (seed 1, learning rate 0.1) and the step counts at which its gradients are taken.
type GradStudy struct {
	Batch, In, Hidden, Out, Depth int
	Steps                         []int // SGD steps trained before each census, ascending (0: untrained)
}

// Limits of a GradStudy, checked before anything is compiled or allocated.
const (
	MaxStudyDim    = 4096
	MaxStudyDepth  = 16
	MaxStudyStages = 6
	MaxStudyFLOPs  = 1e13 // the whole training run: about 100× the lesson's, minutes on a laptop
)

// DefaultGradStudy is the lesson's: DefaultGradModel at StudySteps.
var DefaultGradStudy = GradStudy{Batch: DefaultGradModel.Batch, In: DefaultGradModel.In, Hidden: DefaultGradModel.Hidden,
	Out: DefaultGradModel.Out, Depth: DefaultGradModel.Depth, Steps: StudySteps}

// Model is g's network as the workload that takes its gradients.
func (g GradStudy) Model() workloads.GradModel {
	return workloads.GradModel{Batch: g.Batch, In: g.In, Hidden: g.Hidden, Out: g.Out, Depth: g.Depth, Seed: DefaultGradModel.Seed}
}

// Validate says why a study is refused: a size out of range, step counts out of order, or more
// training than a cell may run (counted from the shapes, nothing allocated).
func (g GradStudy) Validate() error {
	if err := experiments.CheckMLP(Lesson, MaxStudyDim, MaxStudyDepth, g.Batch, g.In, g.Hidden, g.Out, g.Depth); err != nil {
		return err
	}
	if err := experiments.CheckPoints(Lesson, "training stage", len(g.Steps), MaxStudyStages); err != nil {
		return err
	}
	for i, n := range g.Steps {
		if n < 0 || (i > 0 && n <= g.Steps[i-1]) {
			return fmt.Errorf("%s: training stages %v refused: give step counts ≥ 0 in ascending order", Lesson, g.Steps)
		}
	}
	if f := float64(g.Steps[len(g.Steps)-1]) * g.Model().FLOPs(); f > MaxStudyFLOPs {
		return fmt.Errorf("%s: %d steps of this model refused before anything runs: %.3g FLOPs of training, over the %.0g a cell may run",
			Lesson, g.Steps[len(g.Steps)-1], f, float64(MaxStudyFLOPs))
	}
	return nil
}

// Training is the mixed-precision run the learner writes in a cell: the MLP (seed 7) and its SGD
// steps, trained once per compute type.
type Training struct {
	Batch, In, Hidden, Out, Depth int
	Steps                         int
}

// Limits of a Training, checked before anything is compiled or allocated.
const (
	MaxTrainingDim   = 16384
	MaxTrainingDepth = 32
	MaxTrainingSteps = 10000
	MaxTrainingBytes = 4 << 30 // parameters, gradients, activations and batch of one step
)

// MLP is t's network (float32; Mixed sets the compute type of each run).
func (t Training) MLP() workloads.MLP {
	return workloads.MLP{Batch: t.Batch, In: t.In, Hidden: t.Hidden, Out: t.Out, Depth: t.Depth, Seed: 7, Type: dtypes.Float32}
}

// Validate says why a run is refused: a size or step count out of range, or a step that needs more
// memory than a cell may take (computed from the shapes, nothing allocated).
func (t Training) Validate() error {
	if err := experiments.CheckMLP(Lesson, MaxTrainingDim, MaxTrainingDepth, t.Batch, t.In, t.Hidden, t.Out, t.Depth); err != nil {
		return err
	}
	if t.Steps < 2 || t.Steps > MaxTrainingSteps {
		return fmt.Errorf("%s: %d steps refused: use 2…%d (the first step is compilation-warm-up, not timed)", Lesson, t.Steps, MaxTrainingSteps)
	}
	if b := t.MLP().Memory().Total(); b > MaxTrainingBytes {
		return fmt.Errorf("%s: %v refused before anything is allocated: one float32 step needs %s, over the %s a cell may hold",
			Lesson, t.MLP(), units.Bytes(float64(b)), units.Bytes(MaxTrainingBytes))
	}
	return nil
}

// DefaultTraining is the mixed-precision run at scale s.
func DefaultTraining(s experiments.Scale) Training {
	return experiments.Pick(s, Training{Batch: 128, In: 256, Hidden: 512, Out: 16, Depth: 2, Steps: 60},
		Training{Batch: 1024, In: 1024, Hidden: 4096, Out: 64, Depth: 4, Steps: 200})
}
