package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"

	"github.com/gpu-course/whygpu/internal/notebook"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

func executed(t *testing.T, cells ...*notebook.Cell) *notebook.Notebook {
	t.Helper()
	return &notebook.Notebook{NBFormat: 4, Metadata: map[string]any{}, Cells: cells}
}

func codeCell(expect []any, outputs ...map[string]any) *notebook.Cell {
	md := map[string]any{}
	if expect != nil {
		md["whygpu"] = map[string]any{"expect": expect}
	}
	return &notebook.Cell{Type: "code", Metadata: md, Outputs: outputs}
}

func htmlOut(h string) map[string]any {
	return map[string]any{"output_type": "display_data", "data": map[string]any{"text/html": h}}
}

// badge is an output holding one origin badge, as pkg/view/display draws it.
func badge(origin string) map[string]any {
	return htmlOut(`<div class="whygpu-badges"><span class="whygpu-badge" data-origin="` + origin + `">…</span></div>`)
}

func TestExecutedProblems(t *testing.T) {
	svg := strings.Repeat("x", 3000)
	good := executed(t,
		&notebook.Cell{Type: "markdown", Metadata: map[string]any{}},
		codeCell([]any{`re:xla:cpu\s+([0-9.]+) GFLOP/s`}, map[string]any{"output_type": "stream", "name": "stdout", "text": []any{"xla:cpu   41.5 GFLOP/s\n"}}),
		codeCell([]any{"chart"}, badge("live"), map[string]any{"output_type": "display_data", "data": map[string]any{"image/svg+xml": svg, "text/plain": "chart"}}),
		codeCell(nil, map[string]any{"output_type": "stream", "name": "stderr", "text": "I1130 compiling…\n"}),
		codeCell(nil, htmlOut(`<div class="whygpu-badges"><span class="whygpu-badge" data-origin="model">model</span></div><table class="whygpu-table"><thead></thead></table>`)),
		codeCell(nil, htmlOut(`<div class="whygpu-exercise"><table class="whygpu-table"><tr><th>inputs</th></tr></table></div>`)),
	)
	if ps := ExecutedProblems(good); len(ps) != 0 {
		t.Fatalf("good notebook: %v", ps)
	}
	bad := executed(t,
		codeCell(nil, map[string]any{"output_type": "error", "ename": "ERROR", "evalue": "undefined: x"}),
		codeCell(nil, map[string]any{"output_type": "stream", "name": "stderr", "text": "panic: boom"}),
		codeCell(nil, map[string]any{"output_type": "display_data", "data": map[string]any{"text/html": `<div class="whygpu-error">Could not run this step: no plugin</div>`}}),
		codeCell([]any{"chart"}),
		codeCell([]any{`re:GFLOP/s`}, map[string]any{"output_type": "stream", "name": "stdout", "text": "nothing"}),
		codeCell([]any{`re:([0-9.]+) GFLOP/s`}, map[string]any{"output_type": "stream", "name": "stdout", "text": "0 GFLOP/s"}),
		codeCell(nil, map[string]any{"output_type": "display_data", "data": map[string]any{"image/svg+xml": svg}}, badge("live")),
		codeCell(nil, htmlOut(`<table class="whygpu-table"><thead><tr><th>a</th></tr></thead></table>`)),
		codeCell(nil, badge("unstated")),
	)
	ps := ExecutedProblems(bad)
	want := []string{"cell 1: error output", "cell 2: stderr: panic", "cell 3: error shown", "cell 4: expected a chart", "cell 5: expected output", "cell 6: expected a positive number",
		"cell 7: a chart without its origin badge", "cell 8: a table without its origin badge", "cell 9: a table or chart whose origin is not stated"}
	if len(ps) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(ps), len(want), strings.Join(ps, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(ps[i], w) {
			t.Errorf("problem %d = %q, want prefix %q", i, ps[i], w)
		}
	}
}

// TestRunExecutesThroughTheKernel runs two tiny notebooks through `whygpu run` (real Jupyter, the
// course kernel): one passes, one fails on a compile error; both leave an executed copy and HTML.
func TestRunExecutesThroughTheKernel(t *testing.T) {
	root := experiments.Root()
	if _, err := os.Stat(filepath.Join(root, ".venv", "bin", "jupyter")); err != nil {
		devicetest.NeedSetup(t, ".venv", "run make setup")
	}
	if _, err := os.Stat(filepath.Join(root, ".venv", "share", "jupyter", "kernels", "whygpu", "kernel.json")); err != nil {
		devicetest.NeedSetup(t, "the course kernel", "run make setup")
	}
	if testing.Short() {
		t.Skip("starts a kernel; skipped with -short")
	}
	dir := t.TempDir()
	write := func(name string, cells ...*notebook.Cell) string {
		nb := &notebook.Notebook{NBFormat: 4, NBFormatMinor: 5, Cells: cells, Metadata: map[string]any{
			"kernelspec": map[string]any{"name": "whygpu", "display_name": "Go — CPU vs GPU lessons", "language": "go"},
		}}
		p := filepath.Join(dir, name+".ipynb")
		if err := nb.Write(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("01-ok", &notebook.Cell{Type: "code", Source: "%%\nfmt.Println(\"answer\", 6*7)",
		Metadata: map[string]any{"whygpu": map[string]any{"expect": []any{`re:answer (\d+)`}}}})
	broken := write("02-broken", &notebook.Cell{Type: "code", Source: "%%\nfmt.Println(undefinedThing)", Metadata: map[string]any{}})
	out := filepath.Join(dir, "build")
	err := runNotebooks([]string{"-out", out, ok, broken})
	if err == nil || !strings.Contains(err.Error(), "1 of 2 notebook(s) failed") {
		t.Fatalf("want 1 of 2 failed, got %v", err)
	}
	for _, p := range []string{"notebooks/01-ok.ipynb", "notebooks/02-broken.ipynb", "html/01-ok.html", "html/02-broken.html"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Errorf("missing %s: %v", p, err)
		}
	}
	nb, err := notebook.Read(filepath.Join(out, "notebooks", "01-ok.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if ps := ExecutedProblems(nb); len(ps) != 0 {
		t.Errorf("01-ok: %v", ps)
	}
}
