package gpumodel

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// "Where the time would go on an H200", for the MLP step and the GPT step: every kernel class of
// xla:cpu's compile appears with a bound, the table is labeled as the model with its assumptions
// (and says the kernels are xla:cpu's), and a large step's GEMMs are compute-bound while a tiny
// step is overhead-bound.
func TestWhereTimeGoes(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	for _, tc := range []struct {
		name      string
		e         Estimate
		wantBound string
	}{
		{"tiny MLP step", StepEstimate(courseStep(1, 16)), "launch-bound"},
		{"MLP step 4096×1024", StepEstimate(courseStep(4096, 1024)), "compute-bound"},
		{"GPT step", GPTStepEstimate(gpt.GPT{Vocab: 32, Context: 16, Batch: 2, Embed: 16, Layers: 1, Heads: 2}), "launch-bound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.e.Work.Sequence) == 0 {
				t.Fatalf("no kernel sequence read from xla:cpu (%s)", tc.e.Work.KernelsFrom)
			}
			tab := WhereTimeGoes(tc.e)
			text := tab.String()
			if err := CheckLabeled(text); err != nil || !strings.Contains(text, "xla:cpu") {
				t.Errorf("unlabeled view (%v):\n%s", err, text)
			}
			if len(tab.Rows) != len(tc.e.ByClass())+2 {
				t.Errorf("%d rows for %d classes", len(tab.Rows), len(tc.e.ByClass()))
			}
			if tc.e.Bound != tc.wantBound {
				t.Errorf("bound %s, want %s:\n%s", tc.e.Bound, tc.wantBound, text)
			}
		})
	}
}
