package notebook

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
)

// BadgeRule is where the badge rule is explained, named in its problems.
const BadgeRule = `lessons/AUTHORING.md, "Every number is labeled: the origin badge"`

// bypasses are the calls that would put a chart or a table on the screen without its origin badge
// (pkg/view/display draws the badge from what the chart or table carries): package name → function ("" for
// any function of the package) → what to use instead.
var bypasses = map[string]map[string]string{
	"gonbui":  {"": "only pkg/view/display knows GoNB"},
	"display": {"HTML": "raw HTML has no origin"},
	"charts":  {"SVG": "a rendered chart has lost its origin", "PNG": "a rendered chart has lost its origin"},
}

// rawMarkup are the string fragments of a chart or a table typed into a cell.
var rawMarkup = []string{"<svg", "<table", "<img"}

// lintBadges checks that a code cell shows charts and tables only through pkg/view/display's functions
// that draw their origin badges (display.Plot, display.Chart, display.Table, display.Results, …): no
// gonbui, no display.HTML, no rendered SVG or PNG, no chart or table markup typed in the cell.
func lintBadges(path string, i int, c *Cell) []Problem {
	g := ToGo(c.Text())
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "cell.go", g.Src, 0)
	if err != nil {
		return nil // lintGo reports it
	}
	var ps []Problem
	add := func(pos token.Pos, what, why string) {
		ps = append(ps, Problem{Notebook: path, Cell: i + 1, Snippet: snippet(c), Msg: fmt.Sprintf(
			"line %d: %s would show a chart or table without its origin badge (%s): show a charts plot with display.Plot or display.Chart and a table with display.Table or display.Results, which draw the badge from its origin (%s)",
			g.cellLine(fset.Position(pos).Line), what, why, BadgeRule)})
	}
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err == nil && strings.HasPrefix(p, "github.com/janpfeifer/gonb/gonbui") {
			add(imp.Pos(), "importing "+p, bypasses["gonbui"][""])
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if fns, ok := bypasses[pkg.Name]; ok {
				why, named := fns[sel.Sel.Name]
				if any, all := fns[""]; all {
					why, named = any, true
				}
				if named {
					add(n.Pos(), pkg.Name+"."+sel.Sel.Name, why)
				}
			}
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			low := strings.ToLower(n.Value)
			for _, m := range rawMarkup {
				if strings.Contains(low, m) {
					add(n.Pos(), fmt.Sprintf("a string with %q", m), "markup typed in a cell says nothing of where its numbers come from")
					break
				}
			}
		}
		return true
	})
	return ps
}
