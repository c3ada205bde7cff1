package workloads

import (
	"fmt"

	"github.com/gomlx/gomlx/core/graph"
)

// StepGraph runs one training step on the current state without donating it and without keeping
// the result (the trainer's state, loss and step count are unchanged), and returns the compiled step
// graph, for pkg/compiled to read what XLA made of it (its kernels, its planned memory).
//
// name, if not "", renames the step's executable first; it takes effect only before the step is
// first compiled (pkg/compiled.DumpName gives a name XLA dumps the optimized HLO of).
func (t *Trainer) StepGraph(name string) (g *graph.Graph, err error) {
	if t.err != nil {
		return nil, t.err
	}
	if name != "" {
		t.exec.WithName(name)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("workloads: compiling %s on %s: %v", t.w, t.dev.Name, r)
		}
	}()
	outs, g, err := t.exec.CallWithGraphOnDevice(0, t.args(t.lr, false)...)
	if err != nil {
		return nil, deviceErr(err, "compiling %s on %s", t.w, t.dev.Name)
	}
	freeAll(outs)
	return g, nil
}
