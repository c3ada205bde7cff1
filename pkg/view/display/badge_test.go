package display

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/controls"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// fixedClock makes the badges' times deterministic: the cell "runs" at 14:03 UTC and has recalled
// nothing, unless a case says so.
func fixedClock(t *testing.T, recalledAt ...time.Time) {
	t.Helper()
	oldNow, oldLocal := now, time.Local
	time.Local = time.UTC
	now = func() time.Time { return time.Date(2026, 12, 2, 14, 3, 0, 0, time.UTC) }
	recalled.Lock()
	old := recalled.times
	recalled.times = recalledAt
	recalled.Unlock()
	t.Cleanup(func() {
		now, time.Local = oldNow, oldLocal
		recalled.Lock()
		recalled.times = old
		recalled.Unlock()
	})
}

// The golden badges: each origin's exact HTML, so a change to how a badge reads is a deliberate one.
func TestBadgeGolden(t *testing.T) {
	at := time.Date(2026, 12, 2, 9, 41, 0, 0, time.UTC)
	long := "H200 datasheet peaks; 128×128 tiles in waves over 132 SMs; the HLO of xla:cpu"
	for _, c := range []struct {
		name    string
		origins []units.Origin
		recall  []time.Time
		want    []string // in this order
		not     []string
	}{
		{name: "live at its own time", origins: []units.Origin{units.Measured(at)},
			want: []string{`<span class="whygpu-badge" data-origin="live" title="origin: measured live 09:41" style="display:inline-block;padding:0 7px;border-radius:9px;border:1px solid rgba(0,158,115,0.9);background:rgba(0,158,115,0.16);color:inherit;white-space:nowrap"><span aria-hidden="true">●</span> measured live 09:41</span>`}},
		{name: "live in this cell", origins: []units.Origin{{Kind: units.Live}},
			want: []string{`data-origin="live"`, `</span> measured live 14:03</span>`}},
		{name: "live recalled from two cells", origins: []units.Origin{{Kind: units.Live}},
			recall: []time.Time{at.Add(5 * time.Minute), at},
			want:   []string{`</span> measured live 09:41–09:46</span>`}},
		{name: "live results of two minutes: one badge", origins: []units.Origin{units.Measured(at.Add(time.Minute)), units.Measured(at), units.Model("H200 datasheet")},
			want: []string{`</span> measured live 09:41–09:42</span>`, `data-origin="model"`}},
		{name: "recorded", origins: []units.Origin{units.RecordedOn("NVIDIA H200, 2026-11-30")},
			want: []string{`data-origin="recorded" title="origin: recorded on NVIDIA H200, 2026-11-30"`, `<span aria-hidden="true">○</span> recorded on NVIDIA H200, 2026-11-30</span>`},
			not:  []string{"<details"}},
		{name: "short model inline, assumptions on hover", origins: []units.Origin{units.Model("H200 datasheet")},
			want: []string{`data-origin="model" title="origin: model — H200 datasheet"`, `</span> model — H200 datasheet</span>`},
			not:  []string{"<details"}},
		{name: "long model in a fold", origins: []units.Origin{units.Model(long)},
			want: []string{`<details class="whygpu-badge-fold"`, `<summary style="cursor:pointer;list-style-position:inside"><span class="whygpu-badge" data-origin="model" title="origin: model — H200 datasheet peaks; 128×128 tiles… — ` + long + `"`,
				`</span> model — H200 datasheet peaks; 128×128 tiles…</span></summary>`, `white-space:normal">` + long + `</div></details>`}},
		{name: "emulated", origins: []units.Origin{units.EmulatedBy("goroutine launch queue")},
			want: []string{`data-origin="emulated"`, `◌</span> emulated — goroutine launch queue</span>`}},
		{name: "arithmetic, formula in the fold", origins: []units.Origin{units.Formula("6·B·D·H")},
			want: []string{`data-origin="arithmetic"`, `=</span> arithmetic — no measurement</span></summary>`, `>6·B·D·H</div></details>`}},
		{name: "no origin at all", origins: nil,
			want: []string{`data-origin="unstated"`, `?</span> origin not stated</span>`}},
		{name: "mixed: one badge per origin, live first", origins: []units.Origin{
			units.Model("H200 datasheet"), units.Measured(at), units.RecordedOn("NVIDIA H200, 2026-11-30"), units.Measured(at), units.Model("H200 datasheet")},
			want: []string{`data-origin="live"`, `data-origin="recorded"`, `data-origin="model"`}},
		{name: "escaped", origins: []units.Origin{units.Model(`<b>&"`)},
			want: []string{`model — &lt;b&gt;&amp;&#34;</span>`}, not: []string{"<b>"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fixedClock(t, c.recall...)
			h := BadgesHTML(c.origins)
			if !strings.HasPrefix(h, `<div class="whygpu-badges"`) || !strings.HasSuffix(h, `</div>`) {
				t.Errorf("not one row of badges: %s", h)
			}
			rest := h
			for _, w := range c.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("badges lack (in order) %s\nin %s", w, h)
				}
				rest = rest[i+len(w):]
			}
			for _, n := range c.not {
				if strings.Contains(h, n) {
					t.Errorf("badges contain %q: %s", n, h)
				}
			}
			if got, want := strings.Count(h, `class="whygpu-badge"`), len(badgesOf(c.origins)); got != want {
				t.Errorf("%d badges, want %d: %s", got, want, h)
			}
		})
	}
}

func TestBadgesText(t *testing.T) {
	fixedClock(t)
	got := badgesText([]units.Origin{{Kind: units.Live}, units.RecordedOn("NVIDIA H200, 2026-11-30"), units.Formula("2·M·N·K")})
	want := "origin: [measured live 14:03] [recorded on NVIDIA H200, 2026-11-30] [arithmetic — no measurement] (2·M·N·K)\n"
	if got != want {
		t.Errorf("badgesText = %q, want %q", got, want)
	}
}

// Every display function that shows a chart or a table draws its badges from what it was given: the
// chart's origins (charts.Origins) or the table's, never from words typed in a cell.
func TestEveryChartAndTableHasBadges(t *testing.T) {
	fixedClock(t)
	bars := func() *plot.Plot {
		p, err := charts.Bars("b", "v", []charts.Bar{{Label: "cpu", Value: 1, Source: charts.Live}, {Label: "gpu", Value: 2, Source: charts.Model, Note: "H200 datasheet"}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		name string
		out  string
		want []string
	}{
		{"Chart", captureStdout(t, func() { Chart(bars()) }), []string{"origin: [measured live 14:03] [model — H200 datasheet]", "[chart: b]"}},
		{"Table without origins", captureStdout(t, func() { Table(units.Table{Header: []string{"a"}, Rows: [][]string{{"1"}}}) }), []string{"origin: [origin not stated]"}},
		{"Table with origins", captureStdout(t, func() {
			Table(units.Table{Header: []string{"a"}, Rows: [][]string{{"1"}}, Origins: []units.Origin{units.Formula("1+0")}})
		}), []string{"origin: [arithmetic — no measurement] (1+0)", "a\n1\n"}},
		{"MarkdownTable", captureStdout(t, func() {
			MarkdownTable("| a |\n|---|\n| 1 |", []units.Origin{units.RecordedOn("H100, 2025"), units.Model("H100 datasheet")})
		}), []string{"origin: [recorded on H100, 2025] [model — H100 datasheet]\n| a |"}},
		{"LiveChart", captureStdout(t, func() { NewLiveChart("loss").Done(bars(), "after 3 steps") }), []string{"origin: [measured live 14:03] [model — H200 datasheet]\nafter 3 steps"}},
		{"panel view", viewText(controls.View{Plot: bars()}), []string{"origin: [measured live 14:03] [model — H200 datasheet]\n[chart: b]"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.out, w) {
				t.Errorf("%s: output lacks %q:\n%s", c.name, w, c.out)
			}
		}
	}
}

// No display path bypasses the badge: in this package's own source, every function that renders a
// chart (charts.SVG, charts.PNG, an image MIME type) or a table (tableHTML) draws the badges itself
// (BadgesHTML, badgesText) or hands what it rendered to a function that does (chart).
func TestNoDisplayPathBypassesTheBadge(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	renders := map[string]token.Pos{} // function → where it renders a chart or table
	badged := map[string]bool{}       // functions that draw the badges
	calls := map[string][]string{}    // function → the package's functions it calls
	for _, f := range pkgs["display"].Files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			name := fn.Name.Name
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok {
						switch {
						case x.Name == "charts" && (n.Sel.Name == "SVG" || n.Sel.Name == "PNG"),
							x.Name == "protocol" && (n.Sel.Name == "MIMEImageSVG" || n.Sel.Name == "MIMEImagePNG"):
							renders[name] = n.Pos()
						}
					}
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok {
						switch id.Name {
						case "tableHTML":
							renders[name] = n.Pos()
						case "BadgesHTML", "badgesText":
							badged[name] = true
						}
						calls[name] = append(calls[name], id.Name)
					}
				}
				return true
			})
		}
	}
	if len(renders) < 5 {
		t.Fatalf("found only %d rendering functions: the scan is broken", len(renders))
	}
	for fn, pos := range renders {
		if badged[fn] || slices.ContainsFunc(calls[fn], func(c string) bool { return badged[c] }) {
			continue
		}
		if fn == "tableHTML" || fn == "BadgesHTML" {
			continue
		}
		t.Errorf("%s: %s renders a chart or table without drawing its origin badges (BadgesHTML/badgesText)", fset.Position(pos), fn)
	}
}
