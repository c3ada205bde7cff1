package memory

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
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
