package charts

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"gonum.org/v1/plot"
)

func line(xs []float64, f func(float64) float64) []XY {
	out := make([]XY, len(xs))
	for i, x := range xs {
		out[i] = XY{X: x, Y: f(x)}
	}
	return out
}

func TestCrossings(t *testing.T) {
	pow2 := []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512}
	tests := []struct {
		name string
		a, b []XY
		want []float64 // crossing x values
	}{
		{"proportional vs flat, exact in log space", line(pow2, func(x float64) float64 { return x }),
			line(pow2, func(float64) float64 { return 100 }), []float64{100}},
		{"different sample grids", line([]float64{1, 10, 1000}, func(x float64) float64 { return 2 * x }),
			line([]float64{3, 30, 300}, func(float64) float64 { return 50 }), []float64{25}},
		{"unsorted input", []XY{{X: 1000, Y: 1000}, {X: 1, Y: 1}}, []XY{{X: 1000, Y: 100}, {X: 1, Y: 100}}, []float64{100}},
		{"no crossing", line(pow2, func(x float64) float64 { return x }),
			line(pow2, func(x float64) float64 { return 2 * x }), nil},
		{"no overlap", line([]float64{1, 2}, func(x float64) float64 { return x }),
			line([]float64{4, 8}, func(float64) float64 { return 1 }), nil},
		{"touching is not crossing", []XY{{X: 1, Y: 1}, {X: 10, Y: 10}, {X: 100, Y: 1}}, []XY{{X: 1, Y: 10}, {X: 100, Y: 10}}, nil},
		{"crossing at a shared point", []XY{{X: 1, Y: 1}, {X: 10, Y: 10}, {X: 100, Y: 100}}, []XY{{X: 1, Y: 100}, {X: 10, Y: 10}, {X: 100, Y: 1}}, []float64{10}},
		{"two crossings", []XY{{X: 1, Y: 1}, {X: 10, Y: 100}, {X: 100, Y: 1}}, []XY{{X: 1, Y: 10}, {X: 100, Y: 10}}, []float64{math.Sqrt(10), math.Sqrt(1000)}},
		{"non-positive points ignored", []XY{{X: 0, Y: 5}, {X: 1, Y: 1}, {X: 100, Y: -3}, {X: 1000, Y: 1000}}, []XY{{X: 1, Y: 100}, {X: 1000, Y: 100}}, []float64{100}},
		{"empty", nil, line(pow2, func(x float64) float64 { return x }), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Crossings(tc.a, tc.b)
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want x = %v", got, tc.want)
			}
			for i, w := range tc.want {
				if math.Abs(got[i].X-w)/w > 1e-9 {
					t.Errorf("crossing %d at x = %v, want %v", i, got[i].X, w)
				}
				// The crossing lies on curve b too.
				lb := logCurve(tc.b)
				if yb := math.Exp(interp(lb, math.Log(got[i].X))); math.Abs(yb-got[i].Y)/yb > 1e-9 {
					t.Errorf("crossing %d: y = %v on a, %v on b", i, got[i].Y, yb)
				}
			}
			at, ok := Crossover(tc.a, tc.b)
			if ok != (len(tc.want) > 0) || (ok && at != got[0]) {
				t.Errorf("Crossover = %v, %v; want the first of %v", at, ok, got)
			}
		})
	}
}

func TestCrossoversNamesTheFasterFirst(t *testing.T) {
	pow2 := []float64{1, 4, 16, 64, 256}
	cpu := Series{Source: Live, Name: "cpu", Points: line(pow2, func(x float64) float64 { return 1e-4 * x })}
	gpu := Series{Source: Live, Name: "gpu", Points: line(pow2, func(float64) float64 { return 1e-3 })}
	for _, order := range [][]Series{{cpu, gpu}, {gpu, cpu}} {
		c := Crossovers(order)
		if len(c) != 1 || c[0].A != "cpu" || c[0].B != "gpu" || math.Abs(c[0].At.X-10) > 1e-9 {
			t.Errorf("Crossovers(%s, %s) = %+v, want cpu then gpu at 10", order[0].Name, order[1].Name, c)
		}
	}
}

func TestTicks(t *testing.T) {
	labels := func(ts []plot.Tick) []string {
		var out []string
		for _, tk := range ts {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		ticker plot.Ticker
		min    float64
		max    float64
		want   string
	}{
		{"log decades", LogTicks{}, 0.5, 2000, "1 10 100 1000"},
		{"log dense", LogTicks{Format: units.Duration}, 1e-3, 2e-2, "1 ms 2 ms 5 ms 10 ms 20 ms"},
		{"pow2 batches", Pow2Ticks{}, 1, 64, "1 2 4 8 16 32 64"},
		{"pow2 thinned", Pow2Ticks{Format: units.Bytes}, 1024, 1 << 30, "1 KiB 16 KiB 256 KiB 4 MiB 64 MiB 1 GiB"},
		{"nice", NiceTicks{}, 0, 47, "0 10 20 30 40"},
		{"nice fractions", NiceTicks{}, 0, 1.9, "0.0 0.5 1.0 1.5"},
		{"percent", PercentTicks{}, 0, 105, "0% 20% 40% 60% 80% 100%"},
		{"log of a bad range", LogTicks{}, -1, 10, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(labels(tc.ticker.Ticks(tc.min, tc.max)), " "); got != tc.want {
				t.Errorf("labels %q, want %q", got, tc.want)
			}
		})
	}
}

func TestLegendSaysTheSource(t *testing.T) {
	tests := []struct {
		s    Series
		want string
	}{
		{Series{Name: "xla:cpu", Source: Live}, "xla:cpu — measured live"},
		{Series{Name: "xla:cuda", Source: Recorded, Note: "NVIDIA H200, 2026-11-30"}, "xla:cuda — recorded on NVIDIA H200, 2026-11-30"},
		{Series{Name: "H200", Source: Model}, "H200 — datasheet model"},
		{Series{Name: "H200", Source: Model, Note: "H200 SXM datasheet"}, "H200 — datasheet model (H200 SXM datasheet)"},
	}
	for _, tc := range tests {
		if got := tc.s.Legend(); got != tc.want {
			t.Errorf("Legend() = %q, want %q", got, tc.want)
		}
	}
}

// TestChartsSVG checks what every chart's SVG says and how it draws each source.
func TestChartsSVG(t *testing.T) {
	g := gallery()
	tests := []struct {
		chart string
		want  []string
	}{
		{"time-vs-batch", []string{"measured live", "recorded on NVIDIA H200, 2026-11-30", "datasheet model", "crossover ≈ 22.8",
			"batch size [samples]", "time per step [s]", "stroke-dasharray", "1 ms"}},
		{"roofline", []string{"ridge 206 FLOP/B", "ridge 7.5 FLOP/B", "matmul 1024", "layernorm", "arithmetic intensity [FLOP/byte]", "performance [FLOP/s]"}},
		{"utilization", []string{"CPU, each of 4 cores — measured live", "CPU, mean of 4 cores", "GPU 0", "utilization [% busy]", "100%"}},
		{"memory", []string{"weights", "gradients", "optimizer state", "activations", "memory [GiB]", "example capacity: 1.5 GiB"}},
		{"bandwidth", []string{"transfer size [bytes]", "bandwidth [GB/s]", "1 GiB", "recorded on"}},
		{"race", []string{"12.3 ms", "810 µs", "winner: xla:cuda, 15.2× faster than xla:cpu", "recorded on NVIDIA H200"}},
		{"throughput", []string{"throughput [samples/s]", "1 M"}},
	}
	for _, tc := range tests {
		t.Run(tc.chart, func(t *testing.T) {
			p, err := g[tc.chart]()
			if err != nil {
				t.Fatal(err)
			}
			b, err := SVG(p, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			svg := string(b)
			if !strings.HasPrefix(svg, "<?xml") || !strings.Contains(svg, "<svg") {
				t.Fatalf("not an SVG: %.80q", svg)
			}
			if !strings.Contains(svg, "sans-serif") {
				t.Error("SVG text has no sans-serif fallback")
			}
			for _, w := range tc.want {
				if !strings.Contains(svg, w) {
					t.Errorf("SVG lacks %q", w)
				}
			}
		})
	}
}

func TestChartErrors(t *testing.T) {
	tests := []struct {
		name string
		mk   func() (*plot.Plot, error)
		want string
	}{
		{"no series", func() (*plot.Plot, error) { return TimeVsBatch("t", nil) }, "nothing to draw"},
		{"zero time on a log axis", func() (*plot.Plot, error) {
			return TimeVsBatch("t", []Series{{Source: Live, Name: "cpu", Points: []XY{{X: 1, Y: 0}}}})
		}, "log axis"},
		{"NaN", func() (*plot.Plot, error) {
			return Lines(Axes{Title: "t"}, Series{Source: Live, Name: "cpu", Points: []XY{{X: 1, Y: math.NaN()}}})
		}, "not a number"},
		{"roof without bandwidth", func() (*plot.Plot, error) {
			return Roofline("r", []Roof{{Source: Live, Name: "cpu", PeakFLOPS: 1e9}})
		}, "positive peak"},
		{"no lanes", func() (*plot.Plot, error) { return RaceBars("r", nil) }, "nothing to draw"},
		{"negative memory", func() (*plot.Plot, error) {
			return MemoryBars(MemoryChart{Title: "m", Bars: []Memory{{Label: "b", Weights: -1}}, Origins: []units.Origin{units.Formula("f")}})
		}, "invalid byte count"},
		{"no utilization", func() (*plot.Plot, error) { return Utilization("u", nil, nil) }, "nothing to draw"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.mk()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got (%v, %v), want an error containing %q", p, err, tc.want)
			}
		})
	}
	if _, err := TimeVsBatch("t", nil); !errors.Is(err, ErrNoData) {
		t.Errorf("empty chart: %v is not ErrNoData", err)
	}
}

func TestRace(t *testing.T) {
	ms := time.Millisecond
	oom := errors.New("out of memory")
	tests := []struct {
		name    string
		lanes   []Lane
		winner  int
		factor  float64
		summary string
	}{
		{"gpu wins", []Lane{{Source: Live, Device: "cpu", Time: 12 * ms}, {Device: "gpu", Time: 3 * ms, Source: Recorded, Note: "H200, 2026-11-30"}},
			1, 4, "gpu (recorded on H200, 2026-11-30) wins: 3 ms vs 12 ms for cpu (measured live), 4× faster"},
		{"failed lane skipped", []Lane{{Source: Live, Device: "cpu", Time: 12 * ms}, {Source: Live, Device: "gpu", Err: oom}},
			0, 0, "only cpu (measured live) finished: 12 ms"},
		{"nobody finished", []Lane{{Source: Live, Device: "gpu", Err: oom}}, -1, 0, "no device finished (gpu: out of memory)"},
		{"three lanes", []Lane{{Source: Live, Device: "a", Time: 5 * ms}, {Source: Live, Device: "b", Time: 2 * ms}, {Source: Live, Device: "c", Time: 3 * ms}},
			1, 1.5, "b (measured live) wins: 2 ms vs 3 ms for c (measured live), 1.5× faster"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, ok := Winner(tc.lanes)
			if ok != (tc.winner >= 0) || w != tc.winner {
				t.Errorf("Winner = %d, %v; want %d", w, ok, tc.winner)
			}
			f, _, ok := Speedup(tc.lanes)
			if ok != (tc.factor > 0) || math.Abs(f-tc.factor) > 1e-9 {
				t.Errorf("Speedup = %v, %v; want %v", f, ok, tc.factor)
			}
			if got := RaceSummary(tc.lanes); got != tc.summary {
				t.Errorf("RaceSummary = %q\nwant          %q", got, tc.summary)
			}
			if _, err := RaceBars("race", tc.lanes); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestRoof(t *testing.T) {
	r := Roof{Source: Live, Name: "dev", PeakFLOPS: 100e9, Bandwidth: 10e9}
	tests := []struct{ intensity, want float64 }{{1, 10e9}, {10, 100e9}, {1000, 100e9}, {0.5, 5e9}}
	if r.Ridge() != 10 {
		t.Errorf("Ridge = %v, want 10", r.Ridge())
	}
	for _, tc := range tests {
		if got := r.Attainable(tc.intensity); got != tc.want {
			t.Errorf("Attainable(%v) = %v, want %v", tc.intensity, got, tc.want)
		}
	}
}

func TestRenderingTwiceKeepsTheLegend(t *testing.T) {
	p, err := TimeVsBatch("t", fixtureTimes())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := SVG(p, 0, 0)
	b, _ := SVG(p, 0, 0)
	if string(a) != string(b) || !strings.Contains(string(b), "measured live") {
		t.Error("a second rendering differs from the first")
	}
	if p.Y.Label.Text == "" {
		t.Error("rendering cleared the y label")
	}
}

func TestLiveBytes(t *testing.T) {
	lines := []LiveLine{
		{Name: "batch 4 — XLA's plan", Points: []XY{{X: 0, Y: 1 << 20}, {X: 0.5, Y: 5 << 20}, {X: 1, Y: 2 << 20}}, Peak: "f32[4,64,64]", Origin: units.Formula("XLA's plan")},
		{Name: "batch 8 — XLA's plan", Points: []XY{{X: 0, Y: 1 << 20}, {X: 0.4, Y: 9 << 20}, {X: 1, Y: 2 << 20}}, Peak: "f32[8,64,64]", Origin: units.Formula("XLA's plan")},
	}
	p, err := LiveBytes("bytes live — compiled on xla:cpu at 23:40", lines)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := SVG(p, Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MiB", "batch 8", "peak 9 MiB", "at its peak: f32[8,64,64]", "23:40"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if _, err := LiveBytes("empty", nil); err == nil {
		t.Error("no lines accepted")
	}
}

// A series, lane, roof, point or span built without a Source is refused by every chart: the zero
// value is NoOrigin, never "measured live".
func TestNoOriginIsRefused(t *testing.T) {
	pts := []XY{{X: 1, Y: 1}, {X: 2, Y: 2}}
	for name, draw := range map[string]func() error{
		"series": func() error { _, err := TimeVsBatch("t", []Series{{Name: "x", Points: pts}}); return err },
		"lane":   func() error { _, err := RaceBars("t", []Lane{{Device: "x", Time: 1}}); return err },
		"roof":   func() error { _, err := Roofline("t", []Roof{{Name: "x", PeakFLOPS: 1e9, Bandwidth: 1e9}}); return err },
		"point": func() error {
			_, err := Roofline("t", []Roof{{Name: "x", Source: Model, PeakFLOPS: 1e9, Bandwidth: 1e9, Points: []RoofPoint{{Label: "p", Intensity: 1, FLOPS: 1e8}}}})
			return err
		},
		"span": func() error { _, err := SpanBars("t", []Span{{Label: "x", Seconds: 1}}); return err },
		"bar":  func() error { _, err := Bars("t", "y", []Bar{{Label: "x", Value: 1}}); return err },
	} {
		if err := draw(); !errors.Is(err, ErrNoOrigin) {
			t.Errorf("%s without a source: %v, want ErrNoOrigin", name, err)
		}
	}
	if Source(0) != NoOrigin || NoOrigin.String() != "no origin" {
		t.Errorf("the zero Source is %v", Source(0))
	}
}
