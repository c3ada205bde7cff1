package memory

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/hlo"
	"github.com/gpu-course/whygpu/pkg/model/memsize"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
	"github.com/gpu-course/whygpu/pkg/workloads/train"
)

// The sizing formula (pkg/model/memsize) beside the memory XLA compiles for lesson 09's GPT step.

// Limits of a step compiled here: XLA compiles on this CPU in seconds up to about these sizes.
const (
	MaxCompileTokens = 8192 // micro-batch × sequence length
	MaxCompileWidth  = 256
	MaxCompileLayers = 6
	MaxCompileVocab  = 4096
)

// ErrNotCompilable is wrapped by GPTOf's error for a setting the course's GPT does not build.
var ErrNotCompilable = errors.New("not compiled here")

// GPTOf is the course's GPT (pkg/workloads) at a sizing setting, if it builds that step: fp32,
// Adam, no recompute, untied embeddings, one device, small enough to compile on this CPU in
// seconds. The error says which control to change.
func GPTOf(s memsize.Setting) (gpt.GPT, error) {
	if err := s.Validate(); err != nil {
		return gpt.GPT{}, err
	}
	why := ""
	switch {
	case s.Precision != memsize.FP32:
		why = "the course's GPT trains in fp32 only: set precision to fp32"
	case s.Optimizer != memsize.Adam:
		why = "the course's GPT trains with Adam only: set the optimizer to Adam"
	case s.Recompute != memsize.NoRecompute:
		why = "the course's GPT keeps every activation (GoMLX's zoo transformer has no checkpoint hook): set recompute to none"
	case s.Tied:
		why = "the course's GPT has its own output layer: untie the embeddings"
	case s.Devices() > 1:
		why = "one device compiles here: set the data-parallel degree to 1"
	case s.MicroBatch*s.Seq > MaxCompileTokens:
		why = fmt.Sprintf("%d tokens per step: keep micro-batch × sequence length ≤ %d", s.MicroBatch*s.Seq, MaxCompileTokens)
	case s.Width > MaxCompileWidth || s.Layers > MaxCompileLayers || s.Vocab > MaxCompileVocab:
		why = fmt.Sprintf("keep width ≤ %d, layers ≤ %d, vocabulary ≤ %d", MaxCompileWidth, MaxCompileLayers, MaxCompileVocab)
	}
	if why != "" {
		return gpt.GPT{}, fmt.Errorf("%s: %s %w: %s", Lesson, s, ErrNotCompilable, why)
	}
	return gpt.GPT{Vocab: s.Vocab, Context: s.Seq, Batch: s.MicroBatch, Embed: s.Width, Layers: s.Layers,
		Heads: s.Heads, FFN: s.FFN, Seed: 9}, nil
}

// StepMemory is one setting's step: the formula's sizing and XLA's compiled plan for the same step.
type StepMemory struct {
	Sizing   memsize.Sizing
	XLA      hlo.Memory
	Timeline hlo.Timeline
	Device   string    // where it was compiled, e.g. "xla:cpu"
	At       time.Time // when
}

// Origin says where the XLA figures come from: "compiled on xla:cpu at 23:40".
func (m StepMemory) Origin() string {
	return fmt.Sprintf("compiled on %s at %s", m.Device, m.At.Format("15:04"))
}

// CompileStep builds lesson 09's GPT step at setting s (GPTOf), compiles it on the default
// device without running it, and reads XLA's memory figures and its memory timeline.
func CompileStep(s memsize.Setting) (StepMemory, error) {
	g, err := GPTOf(s)
	if err != nil {
		return StepMemory{}, err
	}
	z, err := s.Size()
	if err != nil {
		return StepMemory{}, err
	}
	dev, err := devices.Default()
	if err != nil {
		return StepMemory{}, err
	}
	graph, done, err := train.CompileGPTStep(dev, g, hlo.DumpName("gpt_step"))
	if err != nil {
		return StepMemory{}, err
	}
	defer done()
	m, err := hlo.MemoryOf(graph)
	if err != nil {
		return StepMemory{}, err
	}
	tl, err := hlo.TimelineOf(graph)
	if err != nil {
		return StepMemory{}, err
	}
	return StepMemory{Sizing: z, XLA: m, Timeline: tl, Device: dev.Name, At: time.Now()}, nil
}

// CompileSteps runs CompileStep for each setting, in order.
func CompileSteps(ss ...memsize.Setting) ([]StepMemory, error) {
	var out []StepMemory
	for _, s := range ss {
		m, err := CompileStep(s)
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
	return out, nil
}

// batchBytes is the step's input and target tokens (int32 each).
func batchBytes(s memsize.Setting) float64 { return 2 * 4 * float64(s.MicroBatch*s.Seq) }

// Comparison is the formula's figure for what one of XLA's figures holds.
type Comparison struct {
	What            string
	Formula, XLA    float64
	FormulaIs, Note string
}

// Ratio is XLA ÷ formula.
func (c Comparison) Ratio() float64 { return c.XLA / c.Formula }

// Compare lines up XLA's arguments, outputs, temporaries and total with the formula's parts.
func (m StepMemory) Compare() []Comparison {
	z := m.Sizing
	p, g, o := z.Part(memsize.PartParams).Bytes, z.Part(memsize.PartGradients).Bytes, z.Part(memsize.PartOptimizer).Bytes
	a, w := z.Part(memsize.PartActivation).Bytes, z.Part(memsize.PartWorkspace).Bytes
	bb := batchBytes(z.Setting)
	x := m.XLA
	return []Comparison{
		{"arguments", p + o + bb, float64(x.Arguments), "parameters + optimizer state + the batch's tokens",
			"the rest is Adam's step counter and the learning rate (scalars)"},
		{"outputs", p + o, float64(x.Outputs), "parameters + optimizer state (the updated copy)",
			"nothing is donated when compiling: XLA plans the new state beside the old, so a second copy the formula (in-place update) does not count; plus the loss and the output tuple's pointers"},
		{"temporaries", g + a + w, float64(x.Temporary), "gradients + activations + workspace",
			"XLA keeps more per layer than the minimum the formula counts: " + m.peakNote(3)},
		{"total", z.Total() + bb, float64(x.Total()), "every part + the batch",
			"the outputs' second copy of the state, and the temporaries' extra intermediates"},
	}
}

// peakNote names the n largest temporaries live at the step's peak, grouped by shape.
func (m StepMemory) peakNote(n int) string {
	count := map[string]int{}
	size := map[string]int64{}
	for _, b := range m.Timeline.LiveAt(m.Timeline.PeakAt, 0) {
		if b.Kind == hlo.KindTemporary {
			count[b.Shape]++
			size[b.Shape] += b.Bytes
		}
	}
	shapes := make([]string, 0, len(count))
	for s := range count {
		shapes = append(shapes, s)
	}
	sort.Slice(shapes, func(i, j int) bool { return size[shapes[i]] > size[shapes[j]] })
	var parts []string
	for i, s := range shapes {
		if i == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%d× %s (%s)", count[s], s, units.Bytes(float64(size[s]))))
	}
	return "at the peak, " + strings.Join(parts, ", ")
}

// CompareTable shows Compare for each step, with its origin.
func CompareTable(ms []StepMemory) units.Table {
	t := units.NewTable("step", "XLA figure", "XLA (compiled)", "formula", "XLA ÷ formula", "the formula counts", "the difference")
	t.From([]units.Origin{units.Formula("XLA's memory plan of the compiled step beside pkg/model/memsize's formula")}...)
	for _, m := range ms {
		s := m.Sizing.Setting
		for _, c := range m.Compare() {
			t.Add(fmt.Sprintf("b=%d s=%d L=%d d=%d", s.MicroBatch, s.Seq, s.Layers, s.Width), c.What,
				units.Bytes(c.XLA)+" ("+m.Origin()+")", units.Bytes(c.Formula)+" (formula)",
				fmt.Sprintf("%.2f", c.Ratio()), c.FormulaIs, c.Note)
		}
	}
	return t
}

// TimelineChart draws each step's bytes live over its program order (XLA's schedule and live
// ranges), each peak labeled with its largest temporaries.
func TimelineChart(ms []StepMemory) (*plot.Plot, error) {
	var lines []charts.LiveLine
	origin := ""
	for _, m := range ms {
		tl := m.Timeline
		n := len(tl.Live)
		if n == 0 {
			return nil, fmt.Errorf("%s: no timeline", Lesson)
		}
		body := tl.Body() // the parameters listed first hold no time: the program starts after them
		pts := make([]charts.XY, 0, n-body)
		for i := body; i < n; i++ {
			pts = append(pts, charts.XY{X: float64(i-body) / float64(max(n-1-body, 1)), Y: float64(tl.Live[i].Total())})
		}
		s := m.Sizing.Setting
		lines = append(lines, charts.LiveLine{
			Name:   fmt.Sprintf("batch %d, s=%d, L=%d, d=%d — XLA's plan", s.MicroBatch, s.Seq, s.Layers, s.Width),
			Points: pts, Peak: strings.TrimPrefix(m.peakNote(2), "at the peak, "),
			Origin: units.Formula("XLA's memory plan of the compiled step (" + m.Origin() + "): buffer sizes and live ranges, not a measurement")})
		origin = m.Origin()
	}
	return charts.LiveBytes("lesson 09's GPT step: bytes live over its program, XLA's plan\n"+origin, lines)
}
