package smallgpt

import (
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/stepshares"
	"github.com/gpu-course/whygpu/pkg/workloads/corpus"
	"github.com/gpu-course/whygpu/pkg/workloads/data"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
	"github.com/gpu-course/whygpu/pkg/workloads/train"

	"gonum.org/v1/plot"
)

// KeepParts is the name the step-parts results are kept under between cells.
const KeepParts = Lesson + "-step-parts"

// partPrefix starts the names of the parts' results.
const partPrefix = "gpt-part-"

var steppartsExperiments = experiments.List{
	{
		Lesson: Lesson, Name: "step-parts",
		Doc: "the GPT training step's op classes (projection/FFN matmuls, attention, norms+GELU+residuals, output+loss, Adam) timed apart, and the whole step",
		Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
			return StepPartsOn(dev, Config(s), nil)
		},
	},
}

// StepParts times the op classes of the scale's model apart on the default device, then the whole
// step, and keeps the results. progress, if not nil, is told before each.
func StepParts(progress func(done, total int, format string, args ...any)) ([]results.Result, error) {
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	rs, err := StepPartsOn(dev, Model(), progress)
	if err != nil {
		return rs, err
	}
	return rs, results.Keep(KeepParts, rs)
}

// StepPartsOn times each gpt.GPTPart of c on dev (each its own executable, not checked: the
// parts have no reference), then a few whole training steps of c.
func StepPartsOn(dev *devices.Device, c gpt.GPT, progress func(done, total int, format string, args ...any)) ([]results.Result, error) {
	total := len(gpt.GPTParts) + 1
	var out []results.Result
	for i, p := range gpt.GPTParts {
		if progress != nil {
			progress(i, total, "%s", p)
		}
		r, err := measure.Run(dev, gpt.GPTPart{GPT: c, Part: p}, measure.Options{Warmup: 2, Reps: 5, SampleTime: 2e6}, false)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	if progress != nil {
		progress(total-1, total, "the whole step")
	}
	ids, err := corpus.NewTokenizer().Encode(corpus.Text())
	if err != nil {
		return out, err
	}
	tr, err := train.NewGPTTrainer(dev, c)
	if err != nil {
		return out, err
	}
	batches, err := data.NewTextBatches(ids, c.Batch, c.Context, 1)
	if err != nil {
		return out, err
	}
	stats, _, err := measure.Time(func() error {
		in, tg := batches.Next()
		_, err := tr.Step(in, tg)
		return err
	}, measure.Options{Warmup: 2, Reps: 5})
	if err != nil {
		return out, err
	}
	out = append(out, results.Result{
		Workload: c.Name(), Label: c.String(), DType: "float32", Precision: "float32",
		Params: map[string]int{"context": c.Context, "batch": c.Batch, "embed": c.Embed, "layers": c.Layers},
		FLOPs:  c.FLOPs(), Compile: tr.Compile, Stats: stats, RelErr: -1,
		PeakFLOPS: dev.Ceilings.Peak("float32"), PeakSource: dev.Ceilings.Source, Provenance: results.ProvenanceOf(dev),
	})
	if progress != nil {
		progress(total, total, "done")
	}
	return out, nil
}

// RecallParts is the kept live step-parts results plus recordings from devices not here.
func RecallParts() ([]results.Result, error) {
	live, err := results.Recall(KeepParts)
	if err != nil {
		return nil, err
	}
	return experiments.WithRecorded(live, Lesson, "step-parts")
}

// SharesTable lists each op class's share of the step's matrix-product FLOPs next to its share of
// the parts' summed time, and the whole step against that sum.
func SharesTable(rs []results.Result) units.Table { return stepshares.Table(rs, partPrefix) }

// SharesChart draws the same shares as bars.
func SharesChart(rs []results.Result) (*plot.Plot, error) { return stepshares.Chart(rs, partPrefix) }
