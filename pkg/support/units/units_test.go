package units

import (
	"testing"
	"time"
)

func TestFormats(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"SI tera", SI(2.5e12, "FLOP/s"), "2.5 TFLOP/s"},
		{"SI milli", SI(0.0123, "s"), "12.3 ms"},
		{"SI micro", SI(810e-6, "s"), "810 µs"},
		{"SI unit", SI(1, "B"), "1 B"},
		{"SI zero", SI(0, "B"), "0 B"},
		{"SI rounds up a prefix", SI(999.99e3, "B"), "1 MB"},
		{"SI negative", SI(-4200, "W"), "-4.2 kW"},
		{"Duration", Duration(1.5), "1.5 s"},
		{"Long seconds", Long(30), "30 s"},
		{"Long minutes", Long(600), "10 min"},
		{"Long hours", Long(36000), "10 h"},
		{"Long days", Long(864000), "10 days"},
		{"Long years", Long(3.15e9), "99.9 years"},
		{"Bytes small", Bytes(512), "512 B"},
		{"Bytes KiB", Bytes(1536), "1.5 KiB"},
		{"Bytes GiB", Bytes(3 << 30), "3 GiB"},
		{"Plain integer", Plain(1024), "1024"},
		{"Plain fraction", Plain(22.84), "22.8"},
		{"Plain small", Plain(0.1), "0.1"},
		{"Plain large", Plain(2.5e9), "2.5G"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestBytesFixed(t *testing.T) {
	for _, tc := range []struct {
		b    float64
		want string
	}{{512, "512 B"}, {2048, "2.0 KiB"}, {3 << 20, "3.0 MiB"}, {1.5 * (1 << 30), "1.50 GiB"}} {
		if got := BytesFixed(tc.b); got != tc.want {
			t.Errorf("BytesFixed(%g) = %q, want %q", tc.b, got, tc.want)
		}
	}
}

func TestRound3AndPowersOfTwo(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{{1234.5, 1230}, {0.012345, 0.0123}, {0, 0}, {-4.5678, -4.57}, {7, 7}} {
		if got := Round3(tc.in); got != tc.want {
			t.Errorf("Round3(%g) = %g, want %g", tc.in, got, tc.want)
		}
	}
	if got := PowersOfTwo(16, 100); len(got) != 3 || got[0] != 16 || got[2] != 64 {
		t.Errorf("PowersOfTwo(16, 100) = %v", got)
	}
	if got := PowersOfTwo(0, 8); len(got) != 0 {
		t.Errorf("PowersOfTwo(0, 8) = %v, want none", got)
	}
}

func TestTable(t *testing.T) {
	tb := NewTable("a", "b")
	tb.Add("1", "2")
	tb.Note("from a formula")
	if got, want := tb.String(), "a | b\n1 | 2\nfrom a formula\n"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// A disturbed row carries a mark and one footnote says why and what to do; a quiet row and a quiet
// table are never marked.
func TestTableMarksDisturbedRows(t *testing.T) {
	for _, tc := range []struct {
		name      string
		disturbed []string // per row
		want      string
	}{
		{"quiet", nil, "x | t\na | 1 ms\nb | 2 ms\n"},
		{"quiet with empty reasons", []string{"", ""}, "x | t\na | 1 ms\nb | 2 ms\n"},
		{"one disturbed row", []string{"", "other programs used 60% of a core"},
			"x | t | \na | 1 ms | \nb | 2 ms | ⚠ disturbed (1)\n" +
				"⚠ disturbed: (1) other programs used 60% of a core. The marked times include other work and are slower than the hardware: rerun when the machine is quiet.\n"},
		{"same reason shares a footnote", []string{"quota", "quota"},
			"x | t | \na | 1 ms | ⚠ disturbed (1)\nb | 2 ms | ⚠ disturbed (1)\n" +
				"⚠ disturbed: (1) quota. The marked times include other work and are slower than the hardware: rerun when the machine is quiet.\n"},
		{"two reasons", []string{"p", "q"},
			"x | t | \na | 1 ms | ⚠ disturbed (1)\nb | 2 ms | ⚠ disturbed (2)\n" +
				"⚠ disturbed: (1) p; (2) q. The marked times include other work and are slower than the hardware: rerun when the machine is quiet.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := NewTable("x", "t")
			for i, c := range [][]string{{"a", "1 ms"}, {"b", "2 ms"}} {
				why := ""
				if i < len(tc.disturbed) {
					why = tc.disturbed[i]
				}
				tb.AddMeasured(why, c...)
			}
			if got := tb.String(); got != tc.want {
				t.Errorf("String() =\n%s\nwant\n%s", got, tc.want)
			}
			if _, rows := tb.Parts(); len(rows[0]) != 2 {
				t.Errorf("Parts() rows gained a cell: %v", rows)
			}
		})
	}
	// A table built as a literal, with Disturbed set beside Rows, is marked the same way.
	lit := Table{Header: []string{"x"}, Rows: [][]string{{"a"}, {"b"}}, Disturbed: []string{"p"}}
	if got := lit.Plain(); got != "x | \na | ⚠ disturbed (1)\nb | \n" {
		t.Errorf("literal table: %q", got)
	}
}

func TestMedian(t *testing.T) {
	xs := []float64{4, 1, 3, 2}
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"odd", Median([]float64{3, 1, 2}), 2},
		{"even: the middle two's mean", Median(xs), 2.5},
		{"none", Median([]float64(nil)), 0},
		{"durations", float64(Median([]time.Duration{3, 1, 4, 2})), 2},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: median %g, want %g", tc.name, tc.got, tc.want)
		}
	}
	if xs[0] != 4 {
		t.Errorf("Median sorted its argument: %v", xs)
	}
}
