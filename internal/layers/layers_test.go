package layers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/gpu-course/whygpu"

// overLimit are the packages still above MaxExported, with the count they may not exceed until
// they are split: the list may only shrink (issue 36 emptied it: pkg/workloads, 253, is split by
// family).
var overLimit = map[string]int{}

// pkgDir is one directory of Go files: its path from the repository root, the module imports of
// its files (tests included) and of its non-test files, every import, and its exported names.
type pkgDir struct {
	dir      string
	imports  map[string][]string // import path → files that import it
	exported int
}

// readTree parses every Go file of the checkout (imports only for tests, declarations for the rest).
func readTree(t *testing.T) map[string]*pkgDir {
	t.Helper()
	root := filepath.Join("..", "..")
	dirs := map[string]*pkgDir{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		p := dirs[rel]
		if p == nil {
			p = &pkgDir{dir: rel, imports: map[string][]string{}}
			dirs[rel] = p
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			p.imports[ip] = append(p.imports[ip], name)
		}
		if !strings.HasSuffix(name, "_test.go") && f.Name.Name != "main" {
			p.exported += exportedNames(f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 20 {
		t.Fatalf("read only %d package directories from %s", len(dirs), root)
	}
	return dirs
}

// exportedNames counts a file's exported top-level names (types, functions, variables, constants)
// and exported methods.
func exportedNames(f *ast.File) int {
	n := 0
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() {
				n++
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						n++
					}
				case *ast.ValueSpec:
					for _, id := range s.Names {
						if id.IsExported() {
							n++
						}
					}
				}
			}
		}
	}
	return n
}

// layerOf is the rank of a repository directory: pkg/<layer>/… its layer's index, anything else
// (lessons, cmd, internal, tests) above every layer.
func layerOf(dir string) int {
	if rest, ok := strings.CutPrefix(dir, "pkg/"); ok {
		top, _, _ := strings.Cut(rest, "/")
		return slices.Index(Layers, top)
	}
	return len(Layers)
}

// lessonOf names the lesson a directory belongs to ("race" for lessons/race/…), "" outside lessons/.
func lessonOf(dir string) string {
	rest, ok := strings.CutPrefix(dir, "lessons/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestPkgHasOnlyLayers: pkg/ holds at most MaxLayers directories and each is a layer of Layers
// (no Go file sits in pkg/ itself).
func TestPkgHasOnlyLayers(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", "..", "pkg"))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
			if !slices.Contains(Layers, e.Name()) {
				t.Errorf("pkg/%s/ is not a layer (Layers: %v)", e.Name(), Layers)
			}
		} else if strings.HasSuffix(e.Name(), ".go") {
			t.Errorf("pkg/%s: Go files belong in a layer's package", e.Name())
		}
	}
	if len(dirs) > MaxLayers || len(Layers) > MaxLayers {
		t.Errorf("pkg/ has %d directories (%v), at most %d", len(dirs), dirs, MaxLayers)
	}
}

// TestNoUpwardImports: a package in pkg/ imports pkg/ packages of its own layer or below only,
// tests included; nothing in pkg/ imports a lesson, cmd/ or tests/.
func TestNoUpwardImports(t *testing.T) {
	tree := readTree(t)
	for _, dir := range sortedKeys(tree) {
		if !strings.HasPrefix(dir, "pkg/") {
			continue
		}
		from := layerOf(dir)
		for _, ip := range sortedKeys(tree[dir].imports) {
			rel, ok := strings.CutPrefix(ip, module+"/")
			if !ok || strings.HasPrefix(rel, "internal/") {
				continue // internal/ test helpers (testmain, devicetest) serve every layer
			}
			if to := layerOf(rel); to > from {
				t.Errorf("%s (layer %s) imports %s, a layer above it (in %v)", dir, layerName(from), rel, tree[dir].imports[ip])
			}
		}
	}
}

func layerName(i int) string {
	if i >= 0 && i < len(Layers) {
		return Layers[i]
	}
	return "outside pkg/"
}

// TestNoLessonImportsAnother: what two lessons need lives in pkg/; only lessons/all (the list of
// every lesson) imports lessons.
func TestNoLessonImportsAnother(t *testing.T) {
	tree := readTree(t)
	for _, dir := range sortedKeys(tree) {
		from := lessonOf(dir)
		if from == "" || from == "all" {
			continue
		}
		for _, ip := range sortedKeys(tree[dir].imports) {
			rel, ok := strings.CutPrefix(ip, module+"/")
			if to := lessonOf(rel); ok && to != "" && to != from {
				t.Errorf("%s (lesson %s) imports %s, another lesson's package (in %v)", dir, from, rel, tree[dir].imports[ip])
			}
		}
	}
}

// TestOnlyViewImportsGoNB: GoNB (gonbui and its packages) is imported by pkg/view/… only.
func TestOnlyViewImportsGoNB(t *testing.T) {
	tree := readTree(t)
	for _, dir := range sortedKeys(tree) {
		if strings.HasPrefix(dir, "pkg/view/") {
			continue
		}
		for _, ip := range sortedKeys(tree[dir].imports) {
			if strings.HasPrefix(ip, "github.com/janpfeifer/gonb") {
				t.Errorf("%s imports %s (in %v): only pkg/view/ may know GoNB", dir, ip, tree[dir].imports[ip])
			}
		}
	}
}

// TestPackagesStaySmall: no pkg/ package exports more than MaxExported names; one that still does
// (overLimit) may not grow.
func TestPackagesStaySmall(t *testing.T) {
	tree := readTree(t)
	for _, dir := range sortedKeys(tree) {
		if !strings.HasPrefix(dir, "pkg/") {
			continue
		}
		n := tree[dir].exported
		limit, known := overLimit[dir]
		switch {
		case known && n <= MaxExported:
			t.Errorf("%s exports %d names, within the limit: drop it from overLimit", dir, n)
		case known && n > limit:
			t.Errorf("%s exports %d names (was %d, limit %d): split it, do not grow it", dir, n, limit, MaxExported)
		case !known && n > MaxExported:
			t.Errorf("%s exports %d names, more than %d: split it by what it holds", dir, n, MaxExported)
		}
	}
	for dir := range overLimit {
		if _, ok := tree[dir]; !ok {
			t.Errorf("overLimit names %s, which is gone", dir)
		}
	}
}
