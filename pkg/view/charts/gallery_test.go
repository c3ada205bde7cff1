package charts

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// The gallery's numbers are made-up fixtures shaped like real curves, for rendering tests only.

func fixtureTimes() []Series {
	var cpu, gpu, model []XY
	for b := 1.0; b <= 512; b *= 2 {
		cpu = append(cpu, XY{X: b, Y: 40e-6 * b})                                                             // grows with the batch
		gpu = append(gpu, XY{X: b, Y: 900e-6 + 0.5e-6*b})                                                     // flat: launch-bound
		model = append(model, XY{X: b, Y: 300e-6 + 0.05e-6*b, Lo: 150e-6 + 0.03e-6*b, Hi: 600e-6 + 0.1e-6*b}) // a model band
	}
	return []Series{
		{Name: "xla:cpu", Points: cpu, Source: Live},
		{Name: "xla:cuda", Points: gpu, Source: Recorded, Note: "NVIDIA H200, 2026-11-30"},
		{Name: "H200 (model)", Points: model, Source: Model, Note: "H200 datasheet"},
	}
}

func fixtureRoofs() []Roof {
	return []Roof{
		{Name: "xla:cpu float32", PeakFLOPS: 150e9, Bandwidth: 20e9, Source: Live, Note: "measured ceilings",
			Points: []RoofPoint{
				{Label: "matmul 1024", Intensity: 170, FLOPS: 110e9, Source: Live},
				{Label: "layernorm", Intensity: 0.6, FLOPS: 9e9, Source: Live},
			}},
		{Name: "H200 bf16", PeakFLOPS: 989e12, Bandwidth: 4.8e12, Source: Model, Note: "H200 datasheet",
			Points: []RoofPoint{{Label: "matmul 8192", Intensity: 2730, FLOPS: 700e12, Source: Recorded, Note: "NVIDIA H200, 2026-11-30"}}},
	}
}

func fixtureUtil() (cores, gpus []Series) {
	for c := 0; c < 4; c++ {
		var pts []XY
		for i := 0; i < 100; i++ {
			t := float64(i) * 0.02
			pts = append(pts, XY{X: t, Y: 50 + 45*math.Sin(t*6+float64(c))})
		}
		cores = append(cores, Series{Source: Live, Name: "cpu", Points: pts})
	}
	var g []XY
	for i := 0; i < 100; i++ {
		t := float64(i) * 0.02
		v := 95.0
		if i%25 < 10 {
			v = 5
		}
		g = append(g, XY{X: t, Y: v})
	}
	return cores, []Series{{Name: "GPU 0 (NVIDIA H200)", Points: g, Source: Recorded, Note: "NVIDIA H200, 2026-11-30"}}
}

func fixtureMemory() MemoryChart {
	var bars []Memory
	for _, b := range []int{16, 64, 256, 1024} {
		bars = append(bars, Memory{Label: "batch " + units.Plain(float64(b)), Weights: 64 << 20, Gradients: 64 << 20,
			Optimizer: 128 << 20, Activations: float64(b) * (1 << 20), Measured: 270<<20 + float64(b)*(1<<20)})
	}
	return MemoryChart{Title: "memory of an MLP training step", Bars: bars,
		MeasuredName: "process memory in use — measured live", Limits: []Limit{{Label: "example capacity", Bytes: 1.5 * (1 << 30)}},
		Origins: []units.Origin{units.Formula("bytes from the shapes"), units.Measured(time.Now())}}
}

func fixtureLanes() []Lane {
	return []Lane{
		{Device: "xla:cpu", Time: 12300 * time.Microsecond, Source: Live},
		{Device: "go", Time: 95 * time.Millisecond, Source: Live},
		{Device: "xla:cuda", Time: 810 * time.Microsecond, Source: Recorded, Note: "NVIDIA H200, 2026-11-30"},
	}
}

func fixtureBandwidth() []Series {
	var h2d, d2h []XY
	for s := 1024.0; s <= 1<<30; s *= 4 {
		h2d = append(h2d, XY{X: s, Y: 50e9 * s / (s + 200e3)})
		d2h = append(d2h, XY{X: s, Y: 45e9 * s / (s + 250e3)})
	}
	return []Series{
		{Name: "host→device", Points: h2d, Source: Recorded, Note: "NVIDIA H200, 2026-11-30"},
		{Name: "device→host", Points: d2h, Source: Recorded, Note: "NVIDIA H200, 2026-11-30"},
	}
}

// gallery is every chart of the package, drawn from the fixtures.
func gallery() map[string]func() (*plot.Plot, error) {
	cores, gpus := fixtureUtil()
	return map[string]func() (*plot.Plot, error){
		"time-vs-batch": func() (*plot.Plot, error) { return TimeVsBatch("time per training step", fixtureTimes()) },
		"throughput": func() (*plot.Plot, error) {
			s := fixtureTimes()
			for i := range s {
				for j, pt := range s[i].Points {
					s[i].Points[j] = pt.MapY(func(x, y float64) float64 { return x / y })
				}
			}
			return Throughput("training throughput", "batch size [samples]", "samples/s", s)
		},
		"roofline":    func() (*plot.Plot, error) { return Roofline("roofline", fixtureRoofs()) },
		"utilization": func() (*plot.Plot, error) { return Utilization("utilization while training", cores, gpus) },
		"memory":      func() (*plot.Plot, error) { return MemoryBars(fixtureMemory()) },
		"bandwidth":   func() (*plot.Plot, error) { return Bandwidth("host↔device bandwidth", fixtureBandwidth()) },
		"race": func() (*plot.Plot, error) {
			return RaceBars("one training step, batch 64 × hidden 256", fixtureLanes())
		},
		"bars": func() (*plot.Plot, error) {
			return Bars("f32 matmul", "achieved GFLOP/s", []Bar{{"xla:cpu", 100, Live, ""}, {"go", 3, Live, ""}})
		},
		"spans": func() (*plot.Plot, error) {
			return SpanBars("a training run", []Span{
				{Label: "xla:cpu", Seconds: 2.9e8, Source: Live, Note: "at 26 GFLOP/s"},
				{Label: "NVIDIA H200", Seconds: 1.1e4, Low: 9.4e3, High: 1.4e4, Source: Model, Note: "H200 model"},
			})
		},
	}
}

// TestGallery renders every chart to SVG and PNG; with $CHARTS_GALLERY set to a folder it also
// writes the files there, for a look.
func TestGallery(t *testing.T) {
	dir := os.Getenv("CHARTS_GALLERY")
	for name, mk := range gallery() {
		t.Run(name, func(t *testing.T) {
			p, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			svg, err := SVG(p, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(svg) < 2000 {
				t.Errorf("SVG is only %d bytes", len(svg))
			}
			png, err := PNG(p, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(png) < 2000 {
				t.Errorf("PNG is only %d bytes", len(png))
			}
			if dir != "" {
				_ = os.WriteFile(filepath.Join(dir, name+".svg"), svg, 0o644)
				_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
			}
		})
	}
}

// TestGalleryFitsItsWidth: no chart grows wider than Width for a long title, axis label or legend
// entry (a wider SVG overflowed lesson 01's output area); the text is wrapped onto lines instead,
// and the SVG scales down with its container.
func TestGalleryFitsItsWidth(t *testing.T) {
	long := "a long line of text of the kind a model's assumptions make: per-kernel floor 5–20 µs, HBM at 60–90 % of the datasheet, tensor cores at 50–80 % of peak, host link one way"
	for name, mk := range gallery() {
		t.Run(name, func(t *testing.T) {
			p, err := mk()
			if err != nil {
				t.Fatal(err)
			}
			p.Title.Text += " — " + long
			p.X.Label.Text += " — " + long
			AddLegend(p, long)
			svg, err := SVG(p, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			head := string(svg[:min(len(svg), 300)])
			if want := fmt.Sprintf(`width="%gpt"`, float64(Width)); !strings.Contains(head, want) {
				t.Errorf("the SVG is not %s wide: %s", want, head)
			}
			if !strings.Contains(head, "max-width:100%") {
				t.Errorf("the SVG does not scale down with its container: %s", head)
			}
			if w := p.Legend.Rectangle(draw.Canvas{}).Size().X; w > Width-2*legendPad {
				t.Errorf("the legend is %.0fpt wide on a %.0fpt chart", float64(w), float64(Width))
			}
			for _, line := range strings.Split(Wrap(p.Title.TextStyle, p.Title.Text, Width-4*margin), "\n") {
				if w := p.Title.TextStyle.Width(line); w > Width {
					t.Errorf("a title line is %.0fpt wide on a %.0fpt chart: %q", float64(w), float64(Width), line)
				}
			}
			// Centered text that overflows starts left of the canvas: every text element starts inside.
			for _, m := range regexp.MustCompile(`<text x="(-[0-9.]+)"`).FindAllStringSubmatch(string(svg), -1) {
				t.Errorf("a text element starts at x=%s, left of the canvas", m[1])
			}
		})
	}
}
