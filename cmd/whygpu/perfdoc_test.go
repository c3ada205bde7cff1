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
