package workloads

import (
	"slices"

	"github.com/gomlx/gomlx/core/graph"

	"github.com/gpu-course/whygpu/pkg/support/panics"
)

// TrialStep compiles the training step, runs it once as a trial on the current state — nothing
// donated, nothing kept: the trainer's state, loss and step count are unchanged — and returns the
// compiled step graph, for pkg/measure/hlo to read what XLA made of it (its kernels, its planned memory).
//
// name, if not "", renames the step's executable first; it takes effect only before the step is
// first compiled (pkg/measure/hlo.DumpName gives a name XLA dumps the optimized HLO of).
func (t *Trainer) TrialStep(name string) (g *graph.Graph, err error) {
	if t.err != nil {
		return nil, t.err
	}
	if name != "" {
		t.exec.WithName(name)
	}
	defer panics.Catch(&err, "workloads: compiling %s on %s", t.w, t.dev.Name)
	argShapes, err := t.argShapes()
	if err != nil {
		return nil, err
	}
	if g, err = t.exec.Compile(argShapes...); err != nil {
		return nil, DeviceErr(err, "compiling %s on %s", t.w, t.dev.Name)
	}
	outs, err := g.Executable().Execute(slices.Concat(t.fixed, t.state), nil, 0) // nothing donated
	if err != nil {
		return nil, DeviceErr(err, "running %s on %s", t.w, t.dev.Name)
	}
	finalizeBuffers(outs)
	return g, nil
}
