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
			t.Errorf("lessons/%s is not imported by lessons/all/all.go: add\n\t_ %q\nto its import block (`whygpu record` would miss its experiments)", name, lessonsPkg+name)
		}
	}
}
