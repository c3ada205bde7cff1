package stepcharts

import (
	"fmt"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// WhereTime draws gpumodel.WhereTimeGoes as bars: each class's share of the modeled kernel time at
// the pessimistic end next to its share of the FLOPs.
func WhereTime(e gpumodel.Estimate) (*plot.Plot, error) {
	flops := 0.0
	for _, k := range e.Kernels {
		flops += k.FLOPs
	}
	var bars []charts.Bar
	for _, c := range e.ByClass() {
		share := 0.0
		if flops > 0 {
			share = c.FLOPs / flops
		}
		bars = append(bars, charts.Bar{Label: c.Class + " FLOPs", Value: 100 * share, Source: charts.Model, Note: "kernel by kernel, xla:cpu's kernels"},
			charts.Bar{Label: c.Class + " time", Value: 100 * c.Share[1], Source: charts.Model, Note: "kernel by kernel, xla:cpu's kernels"})
	}
	if len(bars) == 0 {
		return nil, fmt.Errorf("%w: no modeled kernels", charts.ErrNoData)
	}
	return charts.Bars(gpumodel.Default().Name()+": share of FLOPs vs share of modeled time, per kernel class (not a measurement)", "share of the step [%]", bars)
}
