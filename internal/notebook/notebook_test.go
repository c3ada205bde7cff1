package notebook

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

var testCfg = Config{Module: "github.com/gpu-course/whygpu", Allowed: []string{"github.com/janpfeifer/gonb", "gonum.org/v1/plot"}}

func md(s string) *Cell {
	return &Cell{Type: "markdown", Source: Source(s), Metadata: map[string]any{}, ID: NewCellID()}
}
func code(s string) *Cell {
	return &Cell{Type: "code", Source: Source(s), Metadata: map[string]any{}, ID: NewCellID()}
}

// lesson builds a notebook that passes every rule; tests break one rule at a time.
func lesson() *Notebook {
	return &Notebook{
		Path: "notebooks/01-race.ipynb", NBFormat: 4, NBFormatMinor: 5,
		Metadata: map[string]any{
			"kernelspec": map[string]any{"name": "whygpu", "display_name": "Go — CPU vs GPU lessons", "language": "go"},
			"whygpu":     map[string]any{"lesson": "01-race"},
		},
		Cells: []*Cell{
			md("# 01 · The race\n\n**Objectives**\n\n- one\n\n**Time:** about 20 minutes\n"),
			code("import \"github.com/gpu-course/whygpu/pkg/view/display\"\n"),
			md("## Latency vs throughput\n\ntext"),
			code("%%\nfor i := 0; i < 3; i++ {\n\tfmt.Println(i)\n}"),
			code("%%\ndisplay.Recall(\"01-race\", 1)"),
			md("## The race"),
			code("func F(x float64) float64 {\n\treturn 0 // ← your formula\n}\n\n%%\ns := `raw\n  kept as is\n`\nfmt.Println(s)\ndisplay.Exercise(race.ExerciseF, F)"),
			md("some words after the code"),
			code("%%\ndisplay.Recall(\"01-race\", 2)"),
			md("## Recap\n\n- done"),
		},
	}
}

func lintMsgs(nb *Notebook) []string {
	var out []string
	for _, p := range Lint(nb, testCfg) {
		out = append(out, p.String())
	}
	return out
}

func expectOne(t *testing.T, nb *Notebook, want ...string) {
	t.Helper()
	msgs := lintMsgs(nb)
	if len(msgs) != 1 {
		t.Fatalf("want exactly one problem containing %q, got %d:\n%s", want, len(msgs), strings.Join(msgs, "\n"))
	}
	for _, w := range want {
		if !strings.Contains(msgs[0], w) {
			t.Errorf("problem %q does not mention %q", msgs[0], w)
		}
	}
}

func TestGoodLessonPasses(t *testing.T) {
	if msgs := lintMsgs(lesson()); len(msgs) != 0 {
		t.Fatalf("a good lesson has problems:\n%s", strings.Join(msgs, "\n"))
	}
}

func TestRules(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(nb *Notebook)
		want   []string
	}{
		{"kernel", func(nb *Notebook) { nb.Metadata["kernelspec"] = map[string]any{"name": "gonb"} }, []string{"kernelspec.name", `"gonb"`}},
		{"lesson id mismatch", func(nb *Notebook) { nb.Metadata["whygpu"] = map[string]any{"lesson": "02-x"} }, []string{"01-race.ipynb", `"02-x"`}},
		{"lesson metadata missing", func(nb *Notebook) { delete(nb.Metadata, "whygpu") }, []string{"metadata.whygpu.lesson is missing"}},
		{"outputs", func(nb *Notebook) {
			nb.Cells[3].Outputs = []map[string]any{{"output_type": "stream", "name": "stdout", "text": "0\n"}}
		}, []string{"cell 4 (code: for i := 0; i < 3; i++ {)", "outputs must be stripped"}},
		{"execution count", func(nb *Notebook) { n := 3; nb.Cells[3].ExecutionCount = &n }, []string{"cell 4", "execution_count"}},
		{"absolute path", func(nb *Notebook) { nb.Cells[2].Source += "\nsee /home/alice/x" }, []string{"cell 3", `"/home/"`}},
		{"title", func(nb *Notebook) { nb.Cells[0].Source = "# The race\n**Objectives** **Time:**" }, []string{"cell 1", `"# 01 · Title"`}},
		{"title number", func(nb *Notebook) { nb.Cells[0].Source = "# 02 · The race\n**Objectives** **Time:**" }, []string{"number 02", "01-race.ipynb"}},
		{"objectives", func(nb *Notebook) { nb.Cells[0].Source = "# 01 · The race\n**Time:** 5 min" }, []string{"cell 1", "**Objectives**"}},
		{"time", func(nb *Notebook) { nb.Cells[0].Source = "# 01 · The race\n**Objectives**" }, []string{"cell 1", "**Time:**"}},
		{"missing recall", func(nb *Notebook) { nb.Cells = append(nb.Cells[:4], nb.Cells[5:]...) }, []string{"cell 3", `"## Latency vs throughput" has no recall check`, "cell 5"}},
		{"recall not last", func(nb *Notebook) { nb.Cells[3], nb.Cells[4] = nb.Cells[4], nb.Cells[3] }, []string{"cell 5", "closed by its recall check (cell 4)"}},
		{"no recap", func(nb *Notebook) { nb.Cells[9].Source = "## Summary" }, []string{"cell 10", "recap"}},
		{"recap not last", func(nb *Notebook) {
			nb.Cells[9].Source = "## Recap\n\n## Cheat sheet" // one cell, two headings
		}, []string{`"## Recap" must be the last section (found "## Cheat sheet" after it)`}},
		{"gofmt", func(nb *Notebook) { nb.Cells[3].Source = "%%\nfor i:=0; i<3; i++ {\n\tfmt.Println(i)\n}" }, []string{"cell 4", "not gofmt-clean", "line 2"}},
		{"indented main body", func(nb *Notebook) { nb.Cells[4].Source = "%%\n\tdisplay.Recall(\"01-race\", 1)" }, []string{"cell 5", "not gofmt-clean", "line 2"}},
		{"syntax", func(nb *Notebook) { nb.Cells[3].Source = "%%\nfor i := 0; i < 3; i++ {\n" }, []string{"cell 4", "not valid Go"}},
		{"import", func(nb *Notebook) { nb.Cells[1].Source = "import \"github.com/evil/pkg\"\n" }, []string{"cell 2", "line 1", `"github.com/evil/pkg"`}},
		{"shell install", func(nb *Notebook) { nb.Cells[1].Source = "!go get github.com/x/y@v1\n" }, []string{"cell 2", "installs or downloads"}},
		{"no exercise", func(nb *Notebook) { nb.Cells[6].Source = "%%\nfmt.Println(1)" }, []string{"learner-arithmetic cell", "display.Exercise("}},
		{"exercise answered in the cell", func(nb *Notebook) {
			nb.Cells[6].Source = "func F(x float64) float64 {\n\treturn 2 * x\n}\n\n%%\ndisplay.Exercise(race.ExerciseF, F)"
		}, []string{"cell 7", "return 0 // ← your formula"}},
		{"no cell id", func(nb *Notebook) { nb.Cells[3].ID = "" }, []string{"cell 4", "has no id", "whygpu check -ids"}},
		{"bad cell id", func(nb *Notebook) { nb.Cells[3].ID = "a b" }, []string{"cell 4", `"a b"`, "nbformat 4.5"}},
		{"duplicate cell id", func(nb *Notebook) { nb.Cells[5].ID = nb.Cells[2].ID }, []string{"cell 6", "also cell 3's"}},
		{"expectation", func(nb *Notebook) { nb.Cells[3].Metadata["whygpu"] = map[string]any{"expect": []any{"picture"}} }, []string{"cell 4", `"picture"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nb := lesson()
			tc.break_(nb)
			expectOne(t, nb, tc.want...)
		})
	}
}

func TestSetupCheckIsExemptFromLessonRules(t *testing.T) {
	nb := lesson()
	nb.Path = "notebooks/00-setup-check.ipynb"
	nb.Metadata["whygpu"] = map[string]any{"lesson": false}
	nb.Cells = []*Cell{md("# 00 · Set-up check\n"), md("## Devices"), code("%%\nfmt.Println(1)"), md("## Recap")}
	if msgs := lintMsgs(nb); len(msgs) != 0 {
		t.Fatalf("00 without recall checks should pass:\n%s", strings.Join(msgs, "\n"))
	}
	delete(nb.Metadata, "whygpu")
	if msgs := lintMsgs(nb); len(msgs) != 0 {
		t.Fatalf("00 without lesson metadata should pass:\n%s", strings.Join(msgs, "\n"))
	}
	nb.Cells[2].Source = "%%\nfmt.Println( 1 )"
	expectOne(t, nb, "cell 3", "gofmt") // exempt from the lesson rules, not from the others
}

func TestGofmtOfCells(t *testing.T) {
	clean := []string{
		"",
		"import \"fmt\"",
		"import (\n\t\"fmt\"\n\n\t\"github.com/gpu-course/whygpu/pkg/view/display\"\n)\n\n%%\nfmt.Println(display.InNotebook())",
		"func f(x int) int {\n\treturn x * 2\n}\n\n%%\nfmt.Println(f(2))",
		"%%\nif err != nil {\n\treturn\n}\ns := `line\n\tindented in the raw string\nend`\n_ = s",
		"!echo hello \\\n  world\n%%\nfmt.Println(1)",
		"%env FOO=bar\n%%\nfmt.Println(1)",
		"//gonb:%%\nfmt.Println(1)",
		"%%\n// a comment\nx := map[string]int{\n\t\"a\":   1,\n\t\"bcd\": 2,\n}\n_ = x",
	}
	for _, c := range clean {
		if d, err := GofmtDiff(c); err != nil || d != "" {
			t.Errorf("cell %q: diff %q, err %v; want clean", c, d, err)
		}
	}
	dirty := map[string]string{
		"%%\nx:=1\n_ = x":                                         "line 2",
		"%%\n\tfmt.Println(1)":                                    "line 2",
		"func f() {\nreturn\n}":                                   "line 2",
		"import \"fmt\"\n\n\n%%\nfmt.Println()":                   "line 3",
		"%%\nx := map[string]int{\n\t\"a\": 1,\n\t\"bcd\": 2,\n}": "line 3",
	}
	for c, want := range dirty {
		d, err := GofmtDiff(c)
		if err != nil || !strings.Contains(d, want) {
			t.Errorf("cell %q: diff %q, err %v; want a diff at %s", c, d, err, want)
		}
	}
}

func TestParseGoMod(t *testing.T) {
	cfg, err := ParseGoMod("module example.com/m\n\ngo 1.26\n\nrequire example.com/one v1.0.0\n\nrequire (\n\texample.com/two v0.1.0 // indirect\n\tgonum.org/v1/plot v0.17.0\n)\n\ntool example.com/tool\n")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Module != "example.com/m" || strings.Join(cfg.Allowed, ",") != "example.com/one,example.com/two,gonum.org/v1/plot" {
		t.Fatalf("got %+v", cfg)
	}
	for path, want := range map[string]bool{
		"fmt": true, "math/rand/v2": true, "example.com/m/pkg/x": true, "gonum.org/v1/plot/plotter": true,
		"example.com/mm": false, "github.com/other/x": false, "example.com/one/sub": true,
	} {
		if got := cfg.importAllowed(path); got != want {
			t.Errorf("importAllowed(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	nb := lesson()
	b, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\"cell_type\": \"markdown\"") || strings.Contains(string(b), `\u003c`) {
		t.Errorf("not nbformat style:\n%s", b)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	back.Path = nb.Path
	if len(back.Cells) != len(nb.Cells) || back.Cells[6].Text() != nb.Cells[6].Text() {
		t.Fatalf("round trip changed the cells")
	}
	if msgs := lintMsgs(back); len(msgs) != 0 {
		t.Fatalf("round trip broke the lesson:\n%s", strings.Join(msgs, "\n"))
	}
	n := 1
	back.Cells[3].ExecutionCount = &n
	back.Cells[3].Outputs = []map[string]any{{"output_type": "stream"}}
	if !back.Strip() || back.Strip() {
		t.Error("Strip should report a change once")
	}
}

// TestWritersGiveIDs: a notebook written from Go has an id on every cell, unique, and the ids it had
// are kept (whygpu new, whygpu check -strip/-ids all write through Marshal).
func TestWritersGiveIDs(t *testing.T) {
	nb := lesson()
	kept := nb.Cells[0].ID
	nb.Cells[1].ID = ""
	nb.Cells[4].ID = nb.Cells[3].ID
	b, err := nb.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	back.Path = nb.Path
	if msgs := lintMsgs(back); len(msgs) != 0 {
		t.Fatalf("written notebook has problems:\n%s", strings.Join(msgs, "\n"))
	}
	if back.Cells[0].ID != kept {
		t.Errorf("cell 1's id %q was replaced by %q", kept, back.Cells[0].ID)
	}
	if back.GiveIDs() != 0 {
		t.Error("GiveIDs changed a notebook whose cells all have unique ids")
	}
}

// TestSetupCheckNotebook lints the checkout's notebooks/00-setup-check.ipynb (`whygpu check` lints
// them all; `make lint` runs it).
func TestSetupCheckNotebook(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	cfg, err := LoadConfig(root)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "notebooks", "00-setup-check.ipynb")
	if _, err := os.Stat(p); err != nil {
		t.Fatal("notebooks/00-setup-check.ipynb is missing: the course ships it")
	}
	nb, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range Lint(nb, cfg) {
		t.Error(pr)
	}
}

// TestGoingFurtherFollowsTheRecap: "## Going further (optional)" after the recap is off the main
// path: its sections need no recall check and the recap still counts as the last section.
func TestGoingFurtherFollowsTheRecap(t *testing.T) {
	nb := lesson()
	nb.Cells = append(nb.Cells, md(GoingFurther+"\n\n### Extra"), code("%%\nfmt.Println(2)"), md("## More, off the path"))
	if msgs := lintMsgs(nb); len(msgs) != 0 {
		t.Fatalf("a lesson with a Going further section has problems:\n%s", strings.Join(msgs, "\n"))
	}
}

func TestGoingFurther(t *testing.T) {
	nb := lesson()
	nb.Cells = append(nb.Cells, md(GoingFurther+"\n\noff the main path"), code("%%\nfmt.Println(1)"), md("## More depth\n\nno recall check needed"))
	if msgs := lintMsgs(nb); len(msgs) != 0 {
		t.Fatalf("a lesson with a Going further section has problems:\n%s", strings.Join(msgs, "\n"))
	}
	nb = lesson()
	nb.Cells = append(nb.Cells, md("## Going further\n\nx"))
	if msgs := strings.Join(lintMsgs(nb), "\n"); !strings.Contains(msgs, "exactly") {
		t.Errorf("a misspelt Going further heading passed:\n%s", msgs)
	}
	nb = lesson() // the recap after Going further: the main path has no recap at its end
	nb.Cells = append(nb.Cells[:9], md(GoingFurther), md("## Recap"))
	if msgs := strings.Join(lintMsgs(nb), "\n"); !strings.Contains(msgs, "recap") {
		t.Errorf("a recap after Going further passed:\n%s", msgs)
	}
}

func TestProblemCells(t *testing.T) {
	withProblem := func(cell string) *Notebook {
		nb := lesson()
		nb.Cells[6] = code(cell)
		return nb
	}
	good := "%%\nanswer := 0.0 // ← your answer, in samples (work it out on paper first)\ndisplay.Problem(race.ProblemRidge, answer)"
	if msgs := lintMsgs(withProblem(good)); len(msgs) != 0 {
		t.Fatalf("a good problem cell has problems:\n%s", strings.Join(msgs, "\n"))
	}
	expectOne(t, withProblem("%%\nanswer := 206.0 // ← your answer\ndisplay.Problem(race.ProblemRidge, answer)"), "ship the learner's answer as 0")
	nb := withProblem("%%\nfmt.Println(1)")
	expectOne(t, nb, "learner-arithmetic cell")

	// The expected formula printed above the problem fails, however it is spaced or multiplied.
	cfg := testCfg
	cfg.Formulas = []Formula{{Lesson: "01", Key: "01/ridge", Formula: "2·B·D·H ÷ bytes"}}
	nb = withProblem(good)
	if ps := Lint(nb, cfg); len(ps) != 0 {
		t.Fatalf("no formula printed, yet: %v", ps)
	}
	nb.Cells[2] = md("## Latency vs throughput\n\nThe count is `2 × B × D × H / bytes`, see.")
	ps := Lint(nb, cfg)
	if len(ps) != 1 || !strings.Contains(ps[0].String(), "01/ridge") || ps[0].Cell != 3 {
		t.Errorf("the formula above the problem: %v", ps)
	}
	cfg.Formulas[0].Lesson = "02" // another lesson's formula may be printed here
	if ps := Lint(nb, cfg); len(ps) != 0 {
		t.Errorf("another lesson's formula: %v", ps)
	}
}
