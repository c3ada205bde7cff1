package gpumodel

import (
	"strings"
	"testing"
)

// The model card: every published figure lies inside the model's band for the same work, and the
// band is at most 3× wide there; a row the model cannot get right says why (Miss) instead.
func TestModelCard(t *testing.T) {
	card := Card()
	if len(card) < 8 {
		t.Fatalf("%d measurements, want at least 8", len(card))
	}
	for i, m := range card {
		lo, hi := m.Band()
		t.Logf("%2d %-40.40s %g–%g %s: model %.3g–%.3g (%.2f×) inside=%v", i+1, m.Workload, m.Low, m.High, m.Unit, lo, hi, m.Width(), m.Inside())
		if m.Title == "" || !strings.HasPrefix(m.URL, "https://") || m.Date == "" || m.Device == "" || m.Quote == "" {
			t.Errorf("row %d lacks its source (title, URL, date, device, quote): %+v", i+1, m)
		}
		if !(lo > 0 && hi >= lo) {
			t.Errorf("row %d: band %v–%v", i+1, lo, hi)
			continue
		}
		if w := m.Width(); w > 3 {
			t.Errorf("row %d (%s): band %.3g–%.3g %s is %.1f× wide, more than 3×", i+1, m.Workload, lo, hi, m.Unit, w)
		}
		switch {
		case m.Miss == "" && !m.Inside():
			t.Errorf("row %d (%s): published %g–%g %s lies outside the model's band %.3g–%.3g", i+1, m.Workload, m.Low, m.High, m.Unit, lo, hi)
		case m.Miss != "" && m.Inside():
			t.Errorf("row %d (%s): marked a miss (%s) but lies inside the band: drop the Miss", i+1, m.Workload, m.Miss)
		}
	}
	md := CardMarkdown()
	if strings.Count(md, "\n") != len(card)+2 || !strings.Contains(md, "calibrated") {
		t.Errorf("CardMarkdown:\n%s", md)
	}
}
