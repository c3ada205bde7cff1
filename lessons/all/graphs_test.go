package all

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// graphRunning are the names of GoMLX's graph package a package outside pkg/workloads may use: the
// types and the executor that compile and run a graph a workload built. Any other name (graph.Add,
// graph.NewGraph, graph.Parameter, …) creates nodes.
var graphRunning = map[string]bool{"Exec": true, "NewExec": true, "Graph": true, "Node": true}

// graphBuilding are GoMLX packages whose only use is to create nodes (layers and model zoos).
var graphBuilding = []string{"github.com/gomlx/gomlx/ml/layers", "github.com/gomlx/gomlx/ml/zoo"}

// TestOnlyWorkloadsBuildsGraphs keeps "every graph lives in pkg/workloads" true for pkg/ too, where
// a package may import GoMLX's graph package to compile and run what a workload built (pkg/workloads/train's
// trainers, pkg/measure/hlo's readers), never to create nodes: it fails on any use of the graph package
// other than graphRunning, and on any import of GoMLX's layers, outside pkg/workloads. (Lessons may
// not import the graph package at all: TestNoLessonImportsAnother.)
func TestOnlyWorkloadsBuildsGraphs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "pkg", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, file := range files {
		pkg := filepath.Base(filepath.Dir(file))
		if pkg == "workloads" || strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		name := "" // what the file calls the graph package
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			for _, b := range graphBuilding {
				if p == b || strings.HasPrefix(p, b+"/") {
					t.Errorf("%s imports %s: every graph lives in pkg/workloads; build it there and call it", filepath.ToSlash(file), p)
				}
			}
			if p == graphPkg {
				name = "graph"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		if name == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && !graphRunning[sel.Sel.Name] {
				t.Errorf("%s uses graph.%s: every graph lives in pkg/workloads; build it there and call it", filepath.ToSlash(file), sel.Sel.Name)
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("found no pkg/ files to check")
	}
}
