package stepshares

import (
	"fmt"
	"strings"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"
)

// Share is one op class's share of the step's FLOPs and of the parts' summed time.
type Share struct {
	Part        string
	FLOPs, Time float64 // fractions, 0–1
	Seconds     float64
	Disturbed   string // what disturbed its measurement (results.WhyDisturbed), "" if quiet
}

// Of splits one device's results (the first device in rs, live before recorded) into FLOP and time
// shares of the workloads named prefix+class, and returns the whole step's result (the other
// workload) too.
func Of(rs []results.Result, prefix string) (shares []Share, step results.Result, device string) {
	if len(rs) == 0 {
		return nil, results.Result{}, ""
	}
	p := rs[0].Provenance
	var flops, secs float64
	for _, r := range rs {
		if r.Provenance.Label() != p.Label() {
			continue
		}
		if !strings.HasPrefix(r.Workload, prefix) {
			step = r
			continue
		}
		flops += r.FLOPs
		secs += r.Seconds()
		shares = append(shares, Share{Part: strings.TrimPrefix(r.Workload, prefix), FLOPs: r.FLOPs, Seconds: r.Seconds(), Disturbed: results.WhyDisturbed(r)})
	}
	for i := range shares {
		shares[i].Time = shares[i].Seconds / secs
		if flops > 0 {
			shares[i].FLOPs /= flops
		}
	}
	return shares, step, p.Label()
}

// Chart draws, per op class, its share of the FLOPs next to its share of the time.
func Chart(rs []results.Result, prefix string) (*plot.Plot, error) {
	shares, _, dev := Of(rs, prefix)
	if len(shares) == 0 {
		return nil, fmt.Errorf("%w: no step-part results", charts.ErrNoData)
	}
	var bars []charts.Bar
	for _, s := range shares {
		bars = append(bars, fromresult.Bar(rs[0], s.Part+" FLOPs", 100*s.FLOPs), fromresult.Bar(rs[0], s.Part+" time", 100*s.Time))
	}
	return charts.Bars("share of FLOPs vs share of time, per op class ("+dev+")", "share of the step [%]", bars)
}

// Table lists the shares and compares the parts' sum with the whole step; rows whose measurements
// were disturbed are marked (the sum's row when any part's was).
func Table(rs []results.Result, prefix string) units.Table {
	shares, step, _ := Of(rs, prefix)
	origin := "no results"
	if len(rs) > 0 {
		origin = rs[0].Provenance.Label() // Of keeps the parts of one provenance
	}
	t := units.NewTable("op class", "share of FLOPs (formula)", "time alone ("+origin+")", "share of time")
	t.From(results.Origins(rs)...)
	t.From(units.Formula("the shares of FLOPs: each op class's FLOP formula"))
	sum := 0.0
	sumWhy := ""
	for _, s := range shares {
		sum += s.Seconds
		t.AddMeasured(s.Disturbed, s.Part, fmt.Sprintf("%.1f %%", 100*s.FLOPs), units.Duration(s.Seconds), fmt.Sprintf("%.1f %%", 100*s.Time))
		if s.Disturbed != "" {
			sumWhy = "it adds up parts whose measurements were disturbed"
		}
	}
	t.AddMeasured(sumWhy, "sum of the parts", "100 %", units.Duration(sum), "100 %")
	if step.Seconds() > 0 {
		ratio, refused := Whole(step.Seconds(), sum, results.WhyDisturbed(step) != "" || sumWhy != "")
		cell := "— (" + refused + ")"
		if refused == "" {
			cell = fmt.Sprintf("%.0f %% of the sum", 100*ratio)
		}
		t.AddMeasured(results.WhyDisturbed(step), "the whole step, one executable", "", units.Duration(step.Seconds()), cell)
	}
	return t
}

// SlowerThanParts is how much slower than its parts' sum the whole step may run before the ratio is
// refused: one executable does the same work in fewer calls, so it should not take longer.
const SlowerThanParts = 1.25

// Whole compares the whole step's time with its parts' summed time: the ratio, or why none is
// given ("" when it is): a disturbed measurement, or a whole step more than SlowerThanParts times
// its parts (fewer calls for the same work should not cost that much more: likely a disturbed or
// first-run time that the probe missed).
func Whole(step, sum float64, disturbed bool) (ratio float64, refused string) {
	switch {
	case step <= 0 || sum <= 0:
		return 0, "no time measured"
	case disturbed:
		return 0, "not compared: the measurement was disturbed, rerun when quiet"
	case step > SlowerThanParts*sum:
		return 0, fmt.Sprintf("not compared: %.1f× its parts, far more than one executable of the same work should take; likely disturbed, rerun", step/sum)
	}
	return step / sum, ""
}
