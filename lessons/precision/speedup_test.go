package precision

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/lessontest"
)

// TestSpeedReading: the sentence follows the CPU's flags and the rows' shares of their own peaks —
// tiles only where an amx flag is present, and a ratio past the peaks' is float32's shortfall.
func TestSpeedReading(t *testing.T) {
	flags := []struct {
		name      string
		path      string
		tiles     bool
		peakRatio float64
	}{
		{"no flag", "", false, 1},
		{"avx512_bf16 (Zen 5)", "avx512_bf16", false, 2},
		{"amx_bf16 (Sapphire Rapids)", "amx_bf16", true, 16},
	}
	ratios := []struct {
		name            string
		speedup         float64
		f32Share, share float64
	}{
		{"slower", 0.6, 0.4, 0.12},
		{"1.8×", 1.8, 0.3, 0.27},
		{"6.4× (the review's run)", 6.4, 0.10, 0.32},
	}
	// want[flag][ratio]: phrases the sentence must hold.
	want := [][][]string{
		{{"0.60× float32's speed", "no native bfloat16 path", "through float32"},
			{"more than the 1×", "float32 running further below its own peak", "own modeled peak"},
			{"6.4× faster", "more than the 1×", "float32 reached 10%", "bfloat16 32%"}},
		{{"0.60× float32's speed", "gained nothing from avx512_bf16"},
			{"1.8× faster", "within the 2×", "(with avx512_bf16)"},
			{"6.4× faster", "more than the 2×", "float32 reached 10% of its modeled peak", "bfloat16 32% of its own", "not faster hardware"}},
		{{"gained nothing from amx_bf16 tiles"},
			{"within the 16×", "amx_bf16 tiles"},
			{"within the 16×", "past the 2× of vector dot products", "tiles did the work"}},
	}
	for i, f := range flags {
		for j, r := range ratios {
			t.Run(f.name+"/"+r.name, func(t *testing.T) {
				got := speedReading{Precision: "bfloat16", Speedup: r.speedup, PeakRatio: f.peakRatio,
					F32Share: r.f32Share, Share: r.share, Path: f.path, Tiles: f.tiles}.String()
				var notWant []string
				if !f.tiles {
					notWant = []string{"tile", "AMX"} // no tiles named on a CPU without amx flags
				}
				lessontest.Phrases(t, got, want[i][j], notWant)
			})
		}
	}
	// without shares (a recall card) the sentence leaves the numbers out
	got := speedReading{Precision: "bfloat16", Speedup: 8, PeakRatio: 2, Path: "avx512_bf16"}.String()
	if strings.Contains(got, "%") || !strings.Contains(got, "more than the 2×") {
		t.Errorf("no shares: %q", got)
	}
}

// TestServingNotes: flags × times. A precision with fewer bytes that took longer than float32 at one
// request is a slow kernel or overhead, not bandwidth; tiles are named only with amx flags; weights
// inside the L3 make the rate a cache figure.
func TestServingNotes(t *testing.T) {
	const mib = 1 << 20
	// the review's run: 1024×1024 weights; at 1 request bf16 and int8 slower than float32, at 64 faster
	turning := []servingRow{
		{1, "float32", 115e-6, 4 * mib}, {1, "bfloat16", 280e-6, 2 * mib}, {1, Int8, 931e-6, 1 * mib},
		{64, "float32", 900e-6, 4 * mib}, {64, "bfloat16", 400e-6, 2 * mib}, {64, Int8, 300e-6, 1 * mib},
	}
	// bytes pay at one request: int8 fastest, nothing slow
	paying := []servingRow{
		{1, "float32", 400e-6, 4 * mib}, {1, "bfloat16", 210e-6, 2 * mib}, {1, Int8, 110e-6, 1 * mib},
	}
	cases := []struct {
		name    string
		rows    []servingRow
		l3      int64
		flags   []string
		want    []string
		notWant []string
	}{
		{"Zen 5, turning", turning, 32 * mib, []string{"avx512_bf16", "avx512_vnni"},
			[]string{"At 1 request(s) bfloat16 and int8 read fewer bytes than float32 yet took longer", "slow kernel", "bfloat16 and int8 lost to float32 at 1 and beat it at 64",
				"avx512_bf16, avx512_vnni and no AMX tiles", "fit in this CPU's 32 MiB L3", "cache rate, not DRAM"},
			[]string{"take 16 rows"}},
		{"Sapphire Rapids, turning", turning, 32 * mib, []string{"avx512_bf16", "avx512_vnni", "amx_tile", "amx_bf16", "amx_int8"},
			[]string{"AMX (amx_tile, amx_bf16, amx_int8), whose tiles take 16 rows at a time"}, nil},
		{"no flags, turning, small L3", turning, 2 * mib, nil,
			[]string{"no 16- or 8-bit dot-product flags", "The largest weights (4 MiB) exceed this CPU's 2 MiB L3"}, []string{"tile", "cache rate"}},
		{"bytes pay, L3 unknown", paying, 0, []string{"avx512_vnni"},
			[]string{"At 1 request(s) per call the fastest was int8"}, []string{"slow kernel", "beat it", "L3", "tile"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lessontest.Phrases(t, strings.Join(servingNotes(tc.rows, tc.l3, tc.flags), "\n"), tc.want, tc.notWant)
		})
	}
}
