package train

import (
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// CompileGPTStep compiles the trainer's step without running it, under the given name (lessons/smallgpt
// compiles its GPU-scale step this way, one far too large to run in a test); an invalid model is
// refused before anything compiles.
func TestCompileGPTStepWithoutRunning(t *testing.T) {
	dev := devicetest.Open(t, devices.CPU)
	for _, tc := range []struct {
		name string
		c    gpt.GPT
		want string // in the error, "" for none
	}{
		{"small", gpt.GPT{Vocab: 16, Context: 8, Batch: 2, Embed: 8, Layers: 1, Heads: 2}, ""},
		{"invalid", gpt.GPT{Vocab: 16, Context: 8, Batch: 2, Embed: 9, Layers: 1, Heads: 2}, "not a multiple"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, done, err := CompileGPTStep(dev, tc.c, "gpt_step_"+tc.name)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("CompileGPTStep(%s): err = %v, want %q", tc.c, err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer done()
			if g.Executable() == nil || !strings.HasPrefix(g.Name(), "gpt_step_"+tc.name) {
				t.Errorf("graph %q: compiled %v, want the step compiled under its name", g.Name(), g.Executable() != nil)
			}
		})
	}
}
