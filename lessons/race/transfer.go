package race

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
)

// The race's GPU lane leaves the batch's copy out, so the race compares compute only. A real training
// loop uploads each batch (lesson 04), and that copy overlaps the previous step only when a prefetcher
// issues it on a second stream; the source's race pays a host→device copy every step. RunCopyingBatch is that option: the
// race's lanes with each step's batch (inputs and targets, float32) copied over the H200's host link
// added to the GPU model's band, from pkg/model/gpumodel's host-link model, and labeled so.

// BatchBytes is what one step of the race copies to the device: its inputs and targets in float32.
func BatchBytes(batch int) float64 {
	return float64(batch) * float64(experiments.StepIn+experiments.StepOut) * 4
}

// HostLink is the link the copy crosses: the H200's PCIe link as pkg/model/gpumodel models it.
func HostLink() gpumodel.Link { return gpumodel.HostLinks(datasheet.H200)[0] }

// RunCopyingBatch races like Run, and adds to the GPU model's lane the host→device copy of each
// step's batch (a model band: the link's bandwidth at its assumed efficiency plus its latency). A
// live or recorded GPU lane is left as measured (its batch was resident) and says so.
func RunCopyingBatch(batch, hidden int) ([]charts.Lane, error) {
	lanes, err := Run(batch, hidden)
	lo, hi := HostLink().Transfer(BatchBytes(batch))
	for i, l := range lanes {
		if l.Device != stepcharts.StepModelName {
			continue
		}
		l.Low, l.High = l.Low+lo, l.High+hi
		l.Time = (l.Low + l.High) / 2
		l.Note = fmt.Sprintf("%s; plus the batch (%s) copied host→device each step over %s: %s–%s (model)", l.Note,
			units.Bytes(BatchBytes(batch)), HostLink().Name, units.Duration(lo.Seconds()), units.Duration(hi.Seconds()))
		lanes[i] = l
	}
	return lanes, err
}

// TransferLine says, at a batch, what copying the batch each step would add to the GPU lane and
// how that compares with the modeled step: the on-screen reason the copy is off by default.
func TransferLine(batch, hidden int) string {
	lo, hi := HostLink().Transfer(BatchBytes(batch))
	e := gpumodel.StepEstimate(experiments.CourseMLP(batch, hidden))
	return fmt.Sprintf("Off by default, so the race compares compute only. A real loop uploads each batch (lesson 04); that copy overlaps the previous step only with a prefetcher on a second stream. "+
		"Copied every step instead, batch %d (%s over %s) adds %s–%s to a modeled step of %s–%s (model: %s). "+
		"To race with it, pass race.RunCopyingBatch instead of race.Run.",
		batch, units.Bytes(BatchBytes(batch)), HostLink().Name, dur(lo), dur(hi), dur(e.Low), dur(e.High), HostLink().Source)
}

func dur(d time.Duration) string { return units.Duration(d.Seconds()) }
