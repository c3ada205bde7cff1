package all

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const lessonsPkg = "github.com/gpu-course/whygpu/lessons/"

// TestEveryLessonIsImported fails when a lessons/<pkg>/ directory with Go code is not imported here:
// its experiments would be missing from `whygpu record`.
func TestEveryLessonIsImported(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "all.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	imported := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		imported[strings.TrimPrefix(p, lessonsPkg)] = true
	}
	dirs, err := os.ReadDir("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		name := d.Name()
		if !d.IsDir() || name == "all" || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") || name == "reference" || name == "testdata" {
			continue
		}
		gofiles, _ := filepath.Glob(filepath.Join("..", name, "*.go"))
		hasCode := false
		for _, g := range gofiles {
			if !strings.HasSuffix(g, "_test.go") {
				hasCode = true
			}
		}
		if hasCode && !imported[name] {
			t.Errorf("lessons/%s is not imported by lessons/all/all.go: add\n\t%q\nto its import block and %s.Experiments to Experiments (`whygpu record` would miss its experiments)", name, lessonsPkg+name, name)
		}
	}
}

// graphPkg is GoMLX's graph package: only pkg/workloads creates nodes with it (TestOnlyWorkloadsBuildsGraphs).
const graphPkg = "github.com/gomlx/gomlx/core/graph"

// TestNoLessonImportsAnother fails when a lesson package (its code or its tests) imports another
// lesson: lessons are leaves, and what two lessons share belongs in pkg/ (sweeps and recordings in
// experiments, graphs in workloads, units and tables in units). lessons/all, which imports every
// lesson for `whygpu record`, and the template are the exceptions. It fails too when a lesson
// imports GoMLX's graph package: every graph lives in pkg/workloads.
func TestNoLessonImportsAnother(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range files {
		lesson := filepath.Base(filepath.Dir(file))
		if lesson == "all" || strings.HasPrefix(lesson, "_") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if other, ok := strings.CutPrefix(p, lessonsPkg); ok && strings.Split(other, "/")[0] != lesson { // lessons/memory/sizing is memory's
				t.Errorf("%s imports lessons/%s: no lesson imports another; move what both need into pkg/", filepath.ToSlash(file), other)
			}
			if p == graphPkg {
				t.Errorf("%s imports %s: every graph lives in pkg/workloads; add a workload there and call it", filepath.ToSlash(file), p)
			}
		}
	}
	if checked == 0 {
		t.Fatal("found no lesson files to check")
	}
}
