package gpumodel

import (
	"fmt"
	"math"

	"github.com/gpu-course/whygpu/pkg/support/units"
)

// WhereTimeGoes is the view "where the time would go on an H200": the modeled kernels of e grouped
// by class, each with its kernel count, its share of the step's FLOPs, its modeled time (a band),
// its share of the kernels' time and what bounds it; a last row holds the fixed costs the kernels
// do not account for (per execution, launches the GPU waits for). The notes carry the model's
// label, its assumptions and that the kernels are xla:cpu's compilation of the graph.
func WhereTimeGoes(e Estimate) units.Table {
	t := units.NewTable("kernel class", "kernels", "share of FLOPs", e.GPU+" model time (not a measurement)", "share of modeled time", "bound")
	t.From(units.Model(e.Note()))
	flops := 0.0
	for _, k := range e.Kernels {
		flops += k.FLOPs
	}
	var sum [2]float64
	for _, c := range e.ByClass() {
		share := 0.0
		if flops > 0 {
			share = c.FLOPs / flops
		}
		sum[0] += c.Time[0]
		sum[1] += c.Time[1]
		t.Add(c.Class, fmt.Sprint(c.Kernels), pct(share), band(c.Time[0], c.Time[1]), pct(c.Share[0])+" – "+pct(c.Share[1]), c.Bound)
	}
	fixed := [2]float64{math.Max(0, e.Low.Seconds()-sum[0]), math.Max(0, e.High.Seconds()-sum[1])}
	t.Add("fixed costs (per execution, waits for launches)", "", "", band(fixed[0], fixed[1]), "", "overhead")
	t.Add("whole step", fmt.Sprint(len(e.Kernels)), "100 %", e.Band(), "", e.Bound)
	t.Note(e.Label() + ".")
	t.Note("GPU model: " + e.Note() + ".")
	t.Note(ChangeLine("step"))
	t.Note("floor-bound: the kernel is shorter than the least time a kernel occupies the GPU, so its own work does not set its time; " +
		"fill-bound: its matrix products have too few output tiles for the SMs, so most SMs wait and the tiles, not the FLOPs, set the time (twice the rows, twice the tiles, about the same time: overhead-bound by the time budget, FLOPs ÷ peak); " +
		"overhead: what no kernel's work explains. The shares of time run from the optimistic to the pessimistic end of the band.")
	return t
}

func pct(f float64) string { return fmt.Sprintf("%.0f %%", 100*f) }

func band(lo, hi float64) string {
	return units.Duration(lo) + " – " + units.Duration(hi)
}
