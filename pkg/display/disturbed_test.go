package display

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure"
)

func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	f()
	os.Stdout = old
	w.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

// A disturbed result is kept and marked with what to do; a quiet one is not marked.
func TestResultsTableMarksDisturbedResults(t *testing.T) {
	quiet := measure.Result{Label: "matmul quiet", Stats: measure.Stats{N: 10, Median: time.Millisecond,
		Disturbance: measure.Disturbance{Counted: true, OthersCores: 0.01}}}
	busy := measure.Result{Label: "matmul busy", Stats: measure.Stats{N: 10, Median: 2 * time.Millisecond,
		Disturbance: measure.Disturbance{Counted: true, OthersCores: 0.6}}}
	for _, show := range []func([]measure.Result){Results, func(rs []measure.Result) { ResultsTable("t", rs) }} {
		out := captureStdout(t, func() { show([]measure.Result{quiet, busy}) })
		if strings.Count(out, "DISTURBED") != 1 || !strings.Contains(out, "2ms DISTURBED (1)") {
			t.Errorf("want only the busy row marked:\n%s", out)
		}
		if !strings.Contains(out, "(1) matmul busy: disturbed: other programs used 60% of a core") ||
			!strings.Contains(out, "rerun when the machine is quiet") || !strings.Contains(out, "matmul quiet") {
			t.Errorf("want the busy row's advice and both rows:\n%s", out)
		}
	}
}
