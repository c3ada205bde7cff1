package charts

import (
	"strings"
	"testing"
	"time"
)

func TestBands(t *testing.T) {
	band := Series{Name: "H200 (model)", Source: Model, Note: "assumptions",
		Points: []XY{{X: 1, Y: 40e-6, Lo: 20e-6, Hi: 90e-6}, {X: 8, Y: 45e-6, Lo: 22e-6, Hi: 95e-6}}}
	if !band.Banded() || !strings.Contains(band.Legend(), "band") {
		t.Errorf("a banded series must say so in its legend: %q", band.Legend())
	}
	if _, err := TimeVsBatch("t", []Series{band}); err != nil {
		t.Errorf("drawing a band: %v", err)
	}
	bad := band
	bad.Points = []XY{{X: 1, Y: 1e-5, Lo: 3e-5, Hi: 2e-5}}
	if _, err := TimeVsBatch("t", []Series{bad}); err == nil || !strings.Contains(err.Error(), "low–high") {
		t.Errorf("an inverted band must be an error, got %v", err)
	}
	for _, tc := range []struct {
		name  string
		cpu   time.Duration
		wants string
	}{
		{"inside the band", 50 * time.Microsecond, "too close to call"},
		{"faster than the band", 5 * time.Microsecond, "faster than the band's near end"},
		{"slower than the band", 500 * time.Microsecond, "wins"},
	} {
		lanes := []Lane{{Device: "xla:cpu", Time: tc.cpu, Source: Live},
			{Device: "H200 (model)", Time: 43 * time.Microsecond, Low: 20 * time.Microsecond, High: 92 * time.Microsecond, Source: Model, Note: "band"}}
		if got := RaceSummary(lanes); !strings.Contains(got, tc.wants) {
			t.Errorf("%s: RaceSummary = %q, want %q", tc.name, got, tc.wants)
		}
		if _, err := RaceBars("race", lanes); err != nil {
			t.Errorf("%s: RaceBars: %v", tc.name, err)
		}
	}
	if got := (Lane{Low: 20 * time.Microsecond, High: 92 * time.Microsecond}).TimeText(); got != "20 µs – 92 µs" {
		t.Errorf("TimeText = %q", got)
	}
}
