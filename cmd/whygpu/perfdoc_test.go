package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

// TestPerfDocIsRendered: docs/performance.md is exactly what `whygpu perfdoc` renders from its
// template and the committed bench reports, so every figure on it comes from a committed report.
func TestPerfDocIsRendered(t *testing.T) {
	root := experiments.Root()
	t.Setenv("WHYGPU_ROOT", root)
	if err := perfdoc([]string{"-check"}); err != nil {
		t.Fatal(err)
	}
	files, err := readBenchReports(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no bench report under %s", perfBenchDir)
	}
	doc, _ := os.ReadFile(filepath.Join(root, perfDocPath))
	for _, f := range files {
		if !strings.Contains(string(doc), f.Path) {
			t.Errorf("%s does not show %s", perfDocPath, f.Path)
		}
	}
	cells, cellPaths, err := readCellsReports(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) == 0 {
		t.Fatalf("no cell report under %s (whygpu bench -cells -json ...)", cellsBenchDir)
	}
	for _, p := range cellPaths {
		if !strings.Contains(string(doc), p) {
			t.Errorf("%s does not show %s", perfDocPath, p)
		}
	}
}

// TestCellsMarkdown: a cell report renders its load verdict, both kernels and the before → after line.
func TestCellsMarkdown(t *testing.T) {
	k := func(flags string, edited float64) CellsKernel {
		return CellsKernel{GOFLAGS: flags,
			Samples: map[string][]float64{"edited": {edited, edited + 1, edited - 0.5}, "rerun": {0.5}, "trivial": {0.3}},
			CPU:     map[string][]float64{"edited": {edited / 2}, "rerun": {0.4}, "trivial": {0.2}}}
	}
	r := CellsReport{Host: "h", Cores: 2, Edits: 3, Command: "whygpu bench -cells", LoadBefore: []float64{9, 1, 1}, LoadAfter: []float64{8, 1, 1},
		Kernels: map[string]CellsKernel{"course": k("new", 2), "baseline": k("old", 6)}}
	md := cellsMarkdown(r, "docs/bench/cells/x.json")
	for _, want := range []string{"**busy**", "baseline: GOFLAGS `old`", "course: GOFLAGS `new`", "6.00 s → 2.00 s wall (3.0× faster)", "✗ 2.00 s", "(bench/cells/x.json)"} {
		if !strings.Contains(md, want) {
			t.Errorf("cell report lacks %q:\n%s", want, md)
		}
	}
}

// TestPerfDocRefuses: a report without its provenance, or a page edited by hand, is an error that
// says what to do.
func TestPerfDocRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, report, doc, want string
	}{
		{"no provenance", `{"points": [{"workload": "matmul"}]}`, "", "lacks its provenance"},
		{"hand-edited page", "", "edited by hand\n", "run `go run ./cmd/whygpu perfdoc`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			t.Setenv("WHYGPU_ROOT", root)
			if err := os.MkdirAll(filepath.Join(root, perfBenchDir), 0o755); err != nil {
				t.Fatal(err)
			}
			write := func(rel, s string) {
				if err := os.WriteFile(filepath.Join(root, rel), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(perfDocTmpl, "# page\n{{.Reports}}")
			write(perfDocPath, tc.doc)
			if tc.report != "" {
				write(perfBenchDir+"/r.json", tc.report)
			}
			err := perfdoc([]string{"-check"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("perfdoc -check: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
