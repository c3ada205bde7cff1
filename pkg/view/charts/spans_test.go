package charts

import (
	"errors"
	"strings"
	"testing"
)

func TestSpanBars(t *testing.T) {
	tests := []struct {
		name    string
		spans   []Span
		wantErr string
	}{
		{"measured and band", []Span{{Source: Live, Label: "cpu", Seconds: 3e8}, {Label: "gpu", Seconds: 1e4, Low: 9e3, High: 1.4e4, Source: Model}}, ""},
		{"recorded", []Span{{Label: "gpu", Seconds: 5e3, Source: Recorded, Note: "H200, 2026-12-01"}}, ""},
		{"none", nil, "no spans"},
		{"zero time", []Span{{Source: Live, Label: "cpu"}}, "no positive finite time"},
		{"bad band end", []Span{{Source: Live, Label: "gpu", Seconds: 1, Low: -1, High: 2}}, "not 0 < low < high"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := SpanBars("run", tc.spans)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				if tc.spans == nil && !errors.Is(err, ErrNoData) {
					t.Errorf("err %v is not ErrNoData", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := SVG(p, 0, 0); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSpanTicks(t *testing.T) {
	var got []string
	for _, tk := range (SpanTicks{}).Ticks(50, 2e9) {
		got = append(got, tk.Label)
	}
	want := "1 min 1 h 1 day 30 days 1 year 10 years"
	if strings.Join(got, " ") != want {
		t.Errorf("ticks %q, want %q", strings.Join(got, " "), want)
	}
}
