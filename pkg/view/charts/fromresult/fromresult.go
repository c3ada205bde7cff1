package fromresult

import (
	"sort"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// Source says where a result comes from, for a chart: charts.Live with no note for a result
// measured in this run (results.Provenance.Live), charts.Recorded with "<model>, <date>" for one
// loaded from a reference file, and charts.NoOrigin — which every chart refuses — for one that is
// neither (measured by another run, or built without a provenance).
func Source(p results.Provenance) (charts.Source, string) {
	switch o := results.OriginOf(p); o.Kind {
	case units.Live:
		return charts.Live, ""
	case units.Recorded:
		return charts.Recorded, o.Note
	}
	return charts.NoOrigin, ""
}

// Bar is one bar of a bar chart for result r: its label, its value (read from r by the caller) and
// r's origin (Source).
func Bar(r results.Result, label string, value float64) charts.Bar {
	s, note := Source(r.Provenance)
	return charts.Bar{Label: label, Value: value, Source: s, Note: note}
}

// Series turns results into series, one per device and provenance (live results of xla:cpu,
// recorded results of xla:cuda, …), each point read with x and y from a result; e.g. time per
// step against batch size:
//
//	fromresult.Series(rs, func(r results.Result) float64 { return float64(r.Params["batch"]) },
//		results.Result.Seconds)
//
// Series come in the order their first result appears; points are sorted by x.
func Series(rs []results.Result, x, y func(results.Result) float64) []charts.Series {
	var out []charts.Series
	index := map[string]int{}
	for _, r := range rs {
		src, note := Source(r.Provenance)
		key := r.Provenance.Device + "\x00" + src.String() + "\x00" + note
		i, ok := index[key]
		if !ok {
			i = len(out)
			index[key] = i
			out = append(out, charts.Series{Name: r.Provenance.Device, Source: src, Note: note})
		}
		out[i].Points = append(out[i].Points, charts.XY{X: x(r), Y: y(r), Disturbed: r.Stats.Disturbed()})
	}
	for i := range out {
		pts := out[i].Points
		sort.SliceStable(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
	}
	return out
}

// Lane turns a result into a race lane: its device, median time and provenance.
func Lane(r results.Result) charts.Lane {
	src, note := Source(r.Provenance)
	return charts.Lane{Device: r.Provenance.Device, Time: r.Stats.Median, Source: src, Note: note}
}

// Point turns a result into a roofline point: its label, arithmetic intensity, achieved FLOP/s
// and provenance.
func Point(r results.Result) charts.RoofPoint {
	src, note := Source(r.Provenance)
	return charts.RoofPoint{Label: r.Label, Intensity: r.Intensity(), FLOPS: r.FLOPS(), Source: src, Note: note}
}
