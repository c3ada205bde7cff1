package notebook

import (
	"strings"
	"testing"
)

// The badge rule: a cell shows charts and tables only through display's badge-drawing functions.
func TestBadgeRule(t *testing.T) {
	for _, c := range []struct {
		name string
		cell string
		want []string // nil: the cell passes
	}{
		{"a chart through display.Plot", "%%\ndisplay.Plot(roofline.Chart())", nil},
		{"a table through display.Table", "%%\ndisplay.Table(roofline.GapTable())", nil},
		{"results through display.ResultsTable", "%%\nrs, err := roofline.Measure()\nif display.Error(err) == nil {\n\tdisplay.ResultsTable(\"x\", rs)\n}", nil},
		{"prose through display.Markdown", "%%\ndisplay.Markdown(bigpicture.Summary())", nil},
		{"a word svg in a comment", "%%\n// the chart is an <svg> image\ndisplay.Plot(roofline.Chart())", nil},
		{"gonbui.DisplayHTML", "%%\ngonbui.DisplayHTML(\"<b>x</b>\")", []string{"cell 4", "line 2: gonbui.DisplayHTML", "only pkg/view/display knows GoNB", "origin badge"}},
		{"gonbui imported", "import \"github.com/janpfeifer/gonb/gonbui\"\n\n%%\nfmt.Println(1)", []string{"line 1: importing github.com/janpfeifer/gonb/gonbui"}},
		{"display.HTML", "%%\ndisplay.HTML(lesson.TableHTML())", []string{"line 2: display.HTML", "raw HTML has no origin"}},
		{"a rendered SVG", "%%\np, _ := roofline.Chart()\nsvg, _ := charts.SVG(p, 0, 0)\nfmt.Println(len(svg))", []string{"line 3: charts.SVG", "lost its origin"}},
		{"a rendered PNG", "%%\np, _ := roofline.Chart()\nb, _ := charts.PNG(p, 0, 0)\n_ = b", []string{"line 3: charts.PNG"}},
		{"table markup typed in", "%%\nfmt.Println(\"<table><tr><td>1 GFLOP/s</td></tr></table>\")", []string{"line 2", `"<table"`, "markup typed in a cell"}},
		{"svg markup typed in", "%%\nx := `<svg width=\"10\"></svg>`\nfmt.Println(x)", []string{"line 2", `"<svg"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			nb := lesson()
			nb.Cells[3].Source = Source(c.cell)
			if c.want == nil {
				if msgs := lintMsgs(nb); len(msgs) != 0 {
					t.Fatalf("a cell that keeps its badge has problems:\n%s", strings.Join(msgs, "\n"))
				}
				return
			}
			expectOne(t, nb, append(c.want, BadgeRule)...)
		})
	}
}

// The rule holds in 00-setup-check too: it is exempt from the lesson rules only.
func TestBadgeRuleInSetupCheck(t *testing.T) {
	nb := lesson()
	nb.Path = "notebooks/00-setup-check.ipynb"
	nb.Metadata["whygpu"] = map[string]any{"lesson": false}
	nb.Cells[0].Source = "# 00 · Setup check"
	nb.Cells[3].Source = Source("%%\ngonbui.DisplaySVG(s)")
	msgs := lintMsgs(nb)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "gonbui.DisplaySVG") {
		t.Fatalf("want the one badge problem, got:\n%s", strings.Join(msgs, "\n"))
	}
}
