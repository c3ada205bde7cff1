package all

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Every lesson table says where its rows come from, and says "measured live" only for results
// measured in this run: the same results from another run (an earlier kernel session) are shown as
// such, never as live.
func TestLessonTablesSayOriginAndLiveOnlyForThisRun(t *testing.T) {
	for _, tc := range lessonTables(t) {
		t.Run(tc.name, func(t *testing.T) {
			quiet := func(int) bool { return false }
			live := tc.table(tc.make(quiet)).String()
			if !strings.Contains(live, "measured live") {
				t.Errorf("results measured in this run, but the table does not say so:\n%s", live)
			}
			other := tc.make(quiet)
			for i := range other {
				other[i].Provenance.Run = "kernel gonb_of_yesterday"
			}
			stale := tc.table(other).String()
			if strings.Contains(stale, "measured live") {
				t.Errorf("results of another run shown as measured live:\n%s", stale)
			}
		})
	}
}

// Every listed experiment's recordings (lessons/reference) carry an origin: the device and date
// they were recorded on. A recording without one would reach a chart as a number from nowhere.
func TestRecordingsHaveOrigin(t *testing.T) {
	all, err := experiments.Join(Experiments...)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		rs, err := experiments.Recorded(e.Lesson, e.Name)
		if err != nil {
			t.Errorf("%s: %v", e.ID(), err)
			continue
		}
		for _, r := range rs {
			if !r.Provenance.HasOrigin() || r.Provenance.Live() || r.Provenance.Model == "" {
				t.Errorf("%s: recorded result %q has no origin: %+v", e.ID(), r.Label, r.Provenance)
			}
		}
	}
	if results.RunID() == "" {
		t.Error("no run id")
	}
}
