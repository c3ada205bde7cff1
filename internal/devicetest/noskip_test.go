package devicetest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoSkipOnOpenError walks every test file of the module and fails on a t.Skip that follows a
// failed devices.Open (or Accelerated, OpenAll, Default) or a device count: such a skip bypasses the
// RequireEnv rule, so under `make test` a broken plugin or a broken devices= option would pass by
// skipping. Tests get their devices from Open and OpenDevices instead.
func TestNoSkipOnOpenError(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "build" || d.Name() == "node_modules") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			return err
		}
		for _, where := range skipsOnOpen(fset, f) {
			t.Errorf("%s: t.Skip after a device open or device count; use devicetest.Open or OpenDevices", where)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// skipsOnOpen returns the positions of skips in f that follow a devices.Open* call's error or a
// NumDevices comparison.
func skipsOnOpen(fset *token.FileSet, f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		block, ok := n.(*ast.BlockStmt)
		if !ok {
			return true
		}
		opened := false
		for _, st := range block.List {
			if as, ok := st.(*ast.AssignStmt); ok && opensDevice(as) {
				opened = true
				continue
			}
			ifs, ok := st.(*ast.IfStmt)
			if !ok {
				continue
			}
			if init, ok := ifs.Init.(*ast.AssignStmt); ok && opensDevice(init) {
				opened = true
			}
			if (opened || mentions(ifs.Cond, "NumDevices")) && skips(ifs.Body) {
				out = append(out, fset.Position(ifs.Pos()).String())
			}
		}
		return true
	})
	return out
}

// opensDevice reports whether an assignment calls devices.Open, OpenAll, Accelerated or Default.
func opensDevice(as *ast.AssignStmt) bool {
	for _, r := range as.Rhs {
		call, ok := r.(*ast.CallExpr)
		if !ok {
			continue
		}
		if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "devices" {
				switch sel.Sel.Name {
				case "Open", "OpenAll", "Accelerated", "Default":
					return true
				}
			}
		}
	}
	return false
}

// mentions reports whether the expression uses the named identifier.
func mentions(e ast.Expr, name string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

// skips reports whether a block calls Skip, Skipf or SkipNow directly.
func skips(b *ast.BlockStmt) bool {
	for _, st := range b.List {
		if es, ok := st.(*ast.ExprStmt); ok {
			if call, ok := es.X.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "Skip") {
					return true
				}
			}
		}
	}
	return false
}

// TestSkipsOnOpenFindsTheOldPattern checks the walker on the pattern it forbids and on what replaces it.
func TestSkipsOnOpenFindsTheOldPattern(t *testing.T) {
	tests := []struct {
		src  string
		want int
	}{
		{"dev, err := devices.Open(devices.CPU)\nif err != nil {\n\tt.Skip(err)\n}\n_ = dev", 1},
		{"if _, err := devices.Open(devices.CPU); err != nil {\n\tt.Skipf(\"%v\", err)\n}", 1},
		{"dev := Open(t, devices.CPUSplit)\nif dev.Backend().NumDevices() < 2 {\n\tt.Skip(\"one device\")\n}", 1},
		{"dev, err := devices.Open(devices.CPU)\nif err != nil {\n\tt.Fatal(err)\n}\n_ = dev", 0},
		{"dev := OpenDevices(t, devices.CPUSplit, 2)\n_ = dev", 0},
		{"if testing.Short() {\n\tt.Skip(\"long\")\n}", 0},
	}
	for _, tc := range tests {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x_test.go", "package x\nfunc T(t *testing.T) {\n"+tc.src+"\n}\n", 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := skipsOnOpen(fset, f); len(got) != tc.want {
			t.Errorf("%q: %d skips found (%v), want %d", tc.src, len(got), got, tc.want)
		}
	}
}
