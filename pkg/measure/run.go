package measure

import (
	"errors"
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/panics"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Run prepares w on dev, compiles it (timed apart), checks its result against the float64 reference
// when check is true, then times it with opt. Errors (bad shapes, an unsupported dtype, out of memory)
// come back as errors, never as a crash. If the device's ceilings were measured this session (see
// MeasureCeilings) the result carries them, for PercentOfCeiling.
func Run(dev *devices.Device, w workloads.Workload, opt Options, check bool) (res results.Result, err error) {
	defer panics.Catch(&err, "measure: %s on %s", w, dev.Name)
	inst, err := w.Prepare(dev)
	if err != nil {
		return results.Result{}, err
	}
	res = newResult(dev, w)
	compiled, err := compileInterruptibly(inst)
	if errors.Is(err, ErrInterrupted) {
		return results.Result{}, fmt.Errorf("measure: %s on %s: %w while compiling", w, dev.Name, err)
	}
	defer inst.Close()
	if res.Compile = compiled; err != nil {
		return results.Result{}, fmt.Errorf("measure: compiling %s on %s: %w", w, dev.Name, err)
	}
	if check {
		if res.RelErr, err = inst.Check(); err != nil {
			return results.Result{}, fmt.Errorf("measure: checking %s on %s: %w", w, dev.Name, err)
		}
	}
	if res.Stats, _, err = Time(inst.Run, opt); err != nil {
		return results.Result{}, fmt.Errorf("measure: running %s on %s: %w", w, dev.Name, err)
	}
	return res, nil
}

// compileInterruptibly compiles inst, or returns ErrInterrupted as soon as an interrupt arrives
// (CatchInterrupt): XLA cannot stop a compilation, so it finishes on its own goroutine, which then
// closes the instance; the learner does not wait for it.
func compileInterruptibly(inst workloads.Instance) (time.Duration, error) {
	type done struct {
		d   time.Duration
		err error
	}
	ch := make(chan done, 1)
	go func() {
		var c done
		defer func() { ch <- c }()
		defer panics.Catch(&c.err, "") // on its own goroutine: Run's Catch cannot see it
		c.d, c.err = inst.Compile()
	}()
	select {
	case c := <-ch:
		return c.d, c.err
	case <-interruptNotice():
		go func() { <-ch; inst.Close() }()
		return 0, ErrInterrupted
	}
}

// newResult fills in everything but the timings.
func newResult(dev *devices.Device, w workloads.Workload) results.Result {
	prec := workloads.Precision(dev, w)
	c, cached := CachedCeilings(dev)
	if cached {
		raiseModel(dev, c) // the peak below is the raised one even before MeasureCeilings runs in this process
	}
	res := results.Result{
		Workload: w.Name(), Label: w.String(), DType: workloads.DTypeName(workloads.DTypeOf(w)), Params: workloads.ParamsOf(w),
		FLOPs: workloads.FLOPsOf(w), Bytes: workloads.BytesOf(w), RelErr: -1, Tolerance: workloads.ToleranceOf(dev, w),
		Precision: prec, Provenance: results.ProvenanceOf(dev),
		PeakFLOPS: dev.Ceilings.Peak(prec), PeakBytesPerSec: dev.Ceilings.BandwidthBytes, PeakSource: dev.Ceilings.Source,
	}
	if cached {
		res.CeilingFLOPS, res.CeilingBytesPerSec, res.FirstTouchPerByte = c.FLOPS[prec], c.BytesPerSec, c.FirstTouchPerByte()
	}
	return res
}
