package units

import (
	"testing"
	"time"
)

func TestOriginLabel(t *testing.T) {
	at := time.Date(2026, 12, 2, 9, 41, 0, 0, time.Local)
	for _, c := range []struct {
		o      Origin
		label  string
		folded bool
	}{
		{Measured(at), "measured live 09:41", false},
		{MeasuredHere(), "measured live", false},
		{RecordedOn("NVIDIA H200, 2026-11-30"), "recorded on NVIDIA H200, 2026-11-30", false},
		{Origin{Kind: Recorded}, "recorded earlier", false},
		{Model("H200 datasheet"), "model — H200 datasheet", false},
		{Model(""), "model — no assumptions stated", false},
		{Model("min(peak, intensity × HBM bandwidth), the bend at B ≈ 345; not a measurement"), "model — min(peak, intensity × HBM…", true},
		{EmulatedBy("goroutine launch queue"), "emulated — goroutine launch queue", false},
		{Formula("6·B·D·H"), "arithmetic — no measurement", true},
		{Formula(""), "arithmetic — no measurement", false},
		{Origin{}, "origin not stated", false},
	} {
		if got := c.o.Label(); got != c.label {
			t.Errorf("%+v: Label = %q, want %q", c.o, got, c.label)
		}
		if got := c.o.Folded(); got != c.folded {
			t.Errorf("%+v: Folded = %v, want %v", c.o, got, c.folded)
		}
	}
}

func TestDistinct(t *testing.T) {
	at := time.Date(2026, 12, 2, 9, 41, 0, 0, time.Local)
	got := Distinct([]Origin{Measured(at), Model("a"), Measured(at.Add(10 * time.Second)), Model(" a "), Model("b"), Measured(at.Add(time.Minute))})
	if len(got) != 4 { // 09:41, model a, model b, 09:42
		t.Errorf("Distinct = %v, want 4 origins", got)
	}
}
