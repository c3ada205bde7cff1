package memory

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// ReadSweep says what the learner's batch sweep shows at its largest batch: the activations' share
// of the formula's total, and the measured growth against that total. The notebook prints it, so the
// prose never states the result before it is measured.
func ReadSweep(rs []results.Result) string {
	if len(rs) == 0 {
		return "No sweep kept: run the sweep cell above first."
	}
	var hi results.Result
	found := false
	for _, r := range rs {
		if r.Provenance.Device == rs[0].Provenance.Device && r.Provenance.Recorded == rs[0].Provenance.Recorded && (!found || r.Params["batch"] > hi.Params["batch"]) {
			hi, found = r, true
		}
	}
	m := modelOf(hi).Memory()
	total := float64(m.Total())
	measured := metric(hi, ParamMeasured)
	side := "above"
	if measured < total {
		side = "below"
	}
	return fmt.Sprintf("At batch %d (%s): activations + batch are %.0f%% of the formula's %s; the measured growth, %s, is %s× it — %s the formula.",
		hi.Params["batch"], hi.Provenance.Device, 100*float64(m.Activations+m.Batch)/total, units.BytesFixed(total),
		units.BytesFixed(measured), units.Sig3(measured/total), side)
}

// measuredState sets the learner's 16 bytes per parameter against XLA's plan of the lesson's own
// step (the compiled-memory cell's kept results): XLA's arguments less the batch are the float32
// weights and Adam's two moments as the executable holds them.
func measuredState() (exercise.Measurement, error) {
	rs, err := predict.KeptAny(KeepCompiled)
	if err != nil {
		return exercise.Measurement{}, err
	}
	r := rs[0]
	w := modelOf(r)
	held := float64(XLAFigures(r).Arguments - w.Memory().Batch)
	return exercise.Measurement{
		Case:  exercise.Case{Name: fmt.Sprintf("the lesson's MLP, %d parameters", w.NumParams()), Args: []float64{float64(w.NumParams())}},
		Value: held, What: "XLA's plan of your float32 Adam step: its arguments less the batch",
		Note: fmt.Sprintf("Float32 Adam is 16 bytes per parameter too (4 weights + 4 gradients + 4 + 4 moments). XLA's arguments hold %s bytes per parameter: "+
			"the weights and both moments; the gradients are temporaries, consumed by the fused update.", units.Sig3(held/float64(w.NumParams()))),
	}, nil
}
