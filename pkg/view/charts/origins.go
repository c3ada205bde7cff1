package charts

import (
	"runtime"
	"sync"
	"weak"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Origin is the source with its note as a badge's origin (units.Origin): what display draws above
// the chart.
func (s Source) Origin(note string) units.Origin {
	switch s {
	case Live:
		return units.Origin{Kind: units.Live, Note: note}
	case Recorded:
		return units.RecordedOn(note)
	case Model:
		return units.Model(note)
	case Emulated:
		return units.EmulatedBy(note)
	}
	return units.Origin{Kind: units.Unstated, Note: note}
}

// origins holds, per plot this package built, where its numbers come from. The keys are weak: a
// plot nobody holds any more is dropped from the table.
var origins = struct {
	sync.Mutex
	of map[weak.Pointer[plot.Plot]][]units.Origin
}{of: map[weak.Pointer[plot.Plot]][]units.Origin{}}

// From records that some of p's numbers come from os, next to what p's constructor recorded: for a
// caller that adds its own plotters to a chart. Every constructor of this package records the
// origins of the series, bars, lanes, roofs, points and spans it drew.
func From(p *plot.Plot, os ...units.Origin) {
	if p == nil || len(os) == 0 {
		return
	}
	k := weak.Make(p)
	origins.Lock()
	defer origins.Unlock()
	if _, ok := origins.of[k]; !ok {
		runtime.AddCleanup(p, func(k weak.Pointer[plot.Plot]) {
			origins.Lock()
			delete(origins.of, k)
			origins.Unlock()
		}, k)
	}
	origins.of[k] = units.Distinct(append(origins.of[k], os...))
}

// Origins is where p's numbers come from, one entry per distinct origin, in the order drawn: what
// display shows as badges above the chart. A plot this package did not build has none.
func Origins(p *plot.Plot) []units.Origin {
	if p == nil {
		return nil
	}
	origins.Lock()
	defer origins.Unlock()
	return append([]units.Origin(nil), origins.of[weak.Make(p)]...)
}

// fromSeries records the origins of series with points on p.
func fromSeries(p *plot.Plot, series ...[]Series) {
	var os []units.Origin
	for _, ss := range series {
		for _, s := range ss {
			if len(s.Points) > 0 {
				os = append(os, s.Source.Origin(s.Note))
			}
		}
	}
	From(p, os...)
}
