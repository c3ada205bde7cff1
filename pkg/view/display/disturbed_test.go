package display

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
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
	quiet := results.Result{Label: "matmul quiet", Stats: results.Stats{N: 10, Median: time.Millisecond,
		Disturbance: results.Disturbance{Counted: true, OthersCores: 0.01}}}
	busy := results.Result{Label: "matmul busy", Stats: results.Stats{N: 10, Median: 2 * time.Millisecond,
		Disturbance: results.Disturbance{Counted: true, OthersCores: 0.6}}}
	for _, show := range []func([]results.Result){Results, func(rs []results.Result) { ResultsTable("t", rs) }} {
		out := captureStdout(t, func() { show([]results.Result{quiet, busy}) })
		if strings.Count(out, "DISTURBED") != 1 || !strings.Contains(out, "2ms DISTURBED (1)") {
			t.Errorf("want only the busy row marked:\n%s", out)
		}
		if !strings.Contains(out, "(1) matmul busy: disturbed: other programs used 60% of a core") ||
			!strings.Contains(out, "rerun when the machine is quiet") || !strings.Contains(out, "matmul quiet") {
			t.Errorf("want the busy row's advice and both rows:\n%s", out)
		}
	}
}

// A lesson table shown through Table marks the rows built from disturbed results, with one footnote
// saying what to do, and leaves quiet rows (and quiet tables) unmarked.
func TestTableMarksDisturbedRows(t *testing.T) {
	res := func(others float64, throttled uint64) results.Result {
		return results.Result{Stats: results.Stats{N: 5, Median: time.Millisecond,
			Disturbance: results.Disturbance{Counted: true, OthersCores: others, Throttled: throttled}}}
	}
	for _, tc := range []struct {
		name  string
		rows  []results.Result
		marks int
		says  []string
	}{
		{"quiet", []results.Result{res(0, 0), res(0.05, 0)}, 0, nil},
		{"not counted", []results.Result{{Stats: results.Stats{Disturbance: results.Disturbance{OthersCores: 2}}}}, 0, nil},
		{"a busy neighbour", []results.Result{res(0, 0), res(0.6, 0)}, 1,
			[]string{"⚠ disturbed (1)", "other programs used 60% of a core", "rerun when the machine is quiet"}},
		{"a CPU quota", []results.Result{res(0, 3)}, 1, []string{"CPU quota paused it 3 times", "give this seat more CPU"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := units.NewTable("row", "median")
			for i, r := range tc.rows {
				tb.AddMeasured(results.WhyDisturbed(r), fmt.Sprint(i), r.Stats.Median.String())
			}
			out := captureStdout(t, func() { Table(tb) })
			if got := strings.Count(out, "⚠ disturbed ("); got != tc.marks {
				t.Errorf("%d marked rows, want %d:\n%s", got, tc.marks, out)
			}
			if tc.marks == 0 && strings.Contains(out, "disturbed") {
				t.Errorf("a quiet table mentions disturbance:\n%s", out)
			}
			for _, s := range tc.says {
				if !strings.Contains(out, s) {
					t.Errorf("want %q in:\n%s", s, out)
				}
			}
			if html := tableHTML(tb.Marked()); tc.marks > 0 && !strings.Contains(html, `class="whygpu-disturbed"`) {
				t.Errorf("the HTML table does not style the mark: %s", html)
			}
		})
	}
}

// A real measurement taken while other processes keep every core busy is marked in the table.
func TestTableMarksARealDisturbedMeasurement(t *testing.T) {
	var busy []*exec.Cmd
	for range runtime.NumCPU() {
		c := exec.Command("sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			t.Skipf("cannot start a competing process: %v", err)
		}
		busy = append(busy, c)
	}
	defer func() {
		for _, c := range busy {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}()
	time.Sleep(100 * time.Millisecond)
	st, _, err := measure.Time(func() error {
		for end := time.Now().Add(20 * time.Millisecond); time.Now().Before(end); {
		}
		return nil
	}, measure.Options{Warmup: 1, Reps: 20})
	if err != nil {
		t.Fatal(err)
	}
	r := results.Result{Label: "busy loop", Stats: st}
	tb := units.NewTable("workload", "median")
	tb.AddMeasured(results.WhyDisturbed(r), r.Label, st.Median.String())
	out := captureStdout(t, func() { Table(tb) })
	if !st.Disturbance.Counted {
		t.Skipf("the CPU counters could not be read here: %+v", st.Disturbance)
	}
	if !strings.Contains(out, "⚠ disturbed (1)") || !strings.Contains(out, "other programs used") {
		t.Fatalf("with %d busy processes, others used %.2f cores; want the row marked:\n%s",
			len(busy), st.Disturbance.OthersCores, out)
	}
	t.Logf("others used %.2f cores during the measurement:\n%s", st.Disturbance.OthersCores, out)
}

// Every table and chart of a process whose GPU failed to open says so above it.
func TestGPUFailureLine(t *testing.T) {
	undo := devices.SimulateGPUFailure(errors.New("CUDA_ERROR_NO_DEVICE"))
	defer undo()
	out := captureStdout(t, func() { Table(units.Table{Header: []string{"a"}, Rows: [][]string{{"1"}}}) })
	if !strings.HasPrefix(out, "GPU found but it failed to open: CUDA_ERROR_NO_DEVICE — showing ") {
		t.Errorf("table output: %q", out)
	}
}
