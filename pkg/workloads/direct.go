package workloads

import (
	"fmt"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// direct is a graph compiled by GoMLX and called through the backend's executable
// (compute.Executable.Execute) with device buffers: the timed path of the Trainer. The graph is still
// built and compiled by graph.Exec — one source of the computation — but a call skips what
// graph.Exec.Call does around the execution every time: converting each argument to a buffer (each
// under its own panic guard), looking the shapes up in its cache, and wrapping each output in a new
// tensor (three queries to the plugin per output). Measured on the MLP step (64→64→64→10, SGD),
// interleaved in one process: 87 → 41 Go allocations per step and 10–14 µs less CPU per step at
// every batch (README, "Where a step's time goes").
type direct struct {
	name    string
	exe     compute.Executable
	shapes  []shapes.Shape // the arguments' shapes the executable was compiled for
	nOut    int
	in      []compute.Buffer // reused argument list
	donate  []bool
	checked bool // the first call's arguments had the compiled shapes
}

// compileDirect compiles exec's graph for the argument shapes (graph.Exec caches it, so a later
// graph.Exec call on the same shapes reuses this compilation) and returns its executable. donate says,
// per argument, whether the call hands that argument's buffer to the execution.
func compileDirect(exec *graph.Exec, donate []bool, argShapes ...shapes.Shape) (*direct, error) {
	if len(donate) != len(argShapes) {
		return nil, fmt.Errorf("workloads: %s: %d donate flags for %d arguments", exec.Name(), len(donate), len(argShapes))
	}
	g, err := exec.Compile(argShapes...)
	if err != nil {
		return nil, err
	}
	if n := g.NumParameters(); n != len(argShapes) {
		return nil, fmt.Errorf("workloads: %s compiled with %d parameters for %d arguments", exec.Name(), n, len(argShapes))
	}
	exe := g.Executable()
	if exe == nil {
		return nil, fmt.Errorf("workloads: %s has no executable after compiling", exec.Name())
	}
	return &direct{name: exec.Name(), exe: exe, shapes: argShapes, nOut: len(exe.Outputs()), in: make([]compute.Buffer, 0, len(argShapes)),
		donate: donate}, nil
}

// call executes once on device 0 and returns when the outputs are ready. Donated arguments are
// invalid afterwards, whatever the outcome: on an error they are finalized here (on a GPU they can
// be gigabytes, not to be left to the garbage collector).
//
// The first call checks every argument's shape — dtype and dimensions — against the compiled ones
// (go-xla's Execute compares only the dtype); later calls check the count only, since they pass the
// same buffers or the executable's own outputs (the trainer's state), so the timed path pays no
// plugin queries per argument.
func (d *direct) call(args ...[]compute.Buffer) (outs []compute.Buffer, err error) {
	d.in = d.in[:0]
	for _, a := range args {
		d.in = append(d.in, a...)
	}
	defer func() {
		if err != nil {
			d.finalizeDonated()
		}
		clear(d.in) // no references to buffers kept between calls
	}()
	if len(d.in) != len(d.shapes) {
		return nil, fmt.Errorf("workloads: %s takes %d arguments, got %d", d.name, len(d.shapes), len(d.in))
	}
	if !d.checked {
		if err := d.checkShapes(); err != nil {
			return nil, err
		}
		d.checked = true
	}
	outs, err = d.exe.Execute(d.in, d.donate, 0)
	if err != nil {
		return nil, err
	}
	if len(outs) != d.nOut {
		finalizeBuffers(outs)
		return nil, fmt.Errorf("workloads: %s returned %d outputs, want %d", d.name, len(outs), d.nOut)
	}
	return outs, nil
}

// checkShapes compares each argument's shape with the compiled one.
func (d *direct) checkShapes() error {
	for i, b := range d.in {
		if b == nil {
			return fmt.Errorf("workloads: %s: argument #%d is nil", d.name, i)
		}
		s, err := b.Shape()
		if err != nil {
			return fmt.Errorf("workloads: %s: reading argument #%d's shape: %w", d.name, i, err)
		}
		if !s.Equal(d.shapes[i]) {
			return fmt.Errorf("workloads: %s: argument #%d is %s, compiled for %s", d.name, i, s, d.shapes[i])
		}
	}
	return nil
}

// finalizeDonated frees the donated arguments of the call that failed.
func (d *direct) finalizeDonated() {
	for i, b := range d.in {
		if i < len(d.donate) && d.donate[i] && b != nil {
			_ = b.Finalize()
		}
	}
}

// takeBuffer moves a device tensor's buffer out of it: the caller owns the buffer (and must Finalize
// it); the tensor is left empty.
func takeBuffer(t *tensors.Tensor) (compute.Buffer, error) {
	b, err := t.Backend()
	if err != nil {
		return nil, err
	}
	d, err := t.Device()
	if err != nil {
		return nil, err
	}
	return t.DonateBuffer(b, d)
}

// bufferToFloat64 reads a device buffer (any float dtype) to the host as float64 values; the buffer
// stays the caller's.
func bufferToFloat64(b compute.Buffer) ([]float64, error) {
	t, err := tensors.FromBuffer(b) // a fresh view: its host copy is made by this read
	if err != nil {
		return nil, err
	}
	return toFloat64(t) // t is dropped unfinalized: finalizing it would free b
}

// finalizeBuffers frees buffers (nil entries skipped).
func finalizeBuffers(bs []compute.Buffer) {
	for _, b := range bs {
		if b != nil {
			_ = b.Finalize()
		}
	}
}
