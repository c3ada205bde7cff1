package notebook

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// Kernel is the course kernel's name: every notebook's metadata.kernelspec.name.
const Kernel = "whygpu"

// RecallCall is what a recall-check cell calls.
const RecallCall = "display.Recall("

// ExerciseCall is what a learner-arithmetic cell calls: the learner's formula, checked
// (pkg/teach/exercise). Placeholder is the body such a cell ships with, so the answer is the learner's.
const (
	ExerciseCall = "display.Exercise("
	Placeholder  = "return 0 // ← your formula"
)

// ProblemCall is what an applied-problem cell calls (pkg/teach/exercise's Problem); AnswerPlaceholder is
// the comment of the learner's answer, which the cell ships as 0.
const (
	ProblemCall       = "display.Problem("
	AnswerPlaceholder = "// ← your answer"
)

// GoingFurther is the exact heading of the optional section at a lesson's end: everything from its
// cell on is off the main path (kept and run, but not counted in the word budget, and after the recap).
const GoingFurther = "## Going further (optional)"

var answerZero = regexp.MustCompile(`:=\s*0(\.0*)?\s*` + regexp.QuoteMeta(AnswerPlaceholder))

// Formula is an applied problem's expected relation, as the prose would print it ("2·B·D·H",
// "peak ÷ bandwidth"): a lesson must not print it above its problem cells.
type Formula struct {
	Lesson  string // "02"
	Key     string // the problem's key, to name it
	Formula string
}

// Problem is one lint finding.
type Problem struct {
	Notebook string // path as given
	Cell     int    // 1-based cell number (top to bottom, Markdown cells included); 0: the whole notebook
	Snippet  string // the cell's first line, to find it
	Msg      string
}

func (p Problem) String() string {
	if p.Cell == 0 {
		return fmt.Sprintf("%s: %s", p.Notebook, p.Msg)
	}
	if p.Snippet != "" {
		return fmt.Sprintf("%s: cell %d (%s): %s", p.Notebook, p.Cell, p.Snippet, p.Msg)
	}
	return fmt.Sprintf("%s: cell %d: %s", p.Notebook, p.Cell, p.Msg)
}

// Config is what the lint needs to know about the module.
type Config struct {
	Module  string   // this module's path, e.g. github.com/gpu-course/whygpu
	Allowed []string // module paths required in go.mod (pinned)
	// Formulas are the registered problems' expected formulas (cmd/whygpu fills them from
	// exercise.Problems()); a lesson printing one in Markdown above its problem cells fails.
	Formulas []Formula
}

// LoadConfig reads the module path and the required modules from <root>/go.mod.
func LoadConfig(root string) (Config, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return Config{}, err
	}
	return ParseGoMod(string(b))
}

// ParseGoMod extracts the module path and every required module (direct or indirect) from go.mod
// text. (A small parser, enough for go.mod files written by the go command.)
func ParseGoMod(text string) (Config, error) {
	var c Config
	f, err := modfile.ParseLax("go.mod", []byte(text), nil)
	if err != nil {
		return c, fmt.Errorf("go.mod: %w", err)
	}
	if f.Module == nil || f.Module.Mod.Path == "" {
		return c, fmt.Errorf("go.mod: no module line")
	}
	c.Module = f.Module.Mod.Path
	for _, r := range f.Require {
		c.Allowed = append(c.Allowed, r.Mod.Path)
	}
	sort.Strings(c.Allowed)
	return c, nil
}

// importAllowed reports whether a cell may import path: the standard library (no dot in the first
// path element), this module, or a package of a module pinned in go.mod.
func (c Config) importAllowed(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	if !strings.Contains(first, ".") {
		return true
	}
	if path == c.Module || strings.HasPrefix(path, c.Module+"/") {
		return true
	}
	for _, m := range c.Allowed {
		if path == m || strings.HasPrefix(path, m+"/") {
			return true
		}
	}
	return false
}

// AbsolutePath matches absolute paths of an author's machine (the same list as tests/test_structure.py).
var AbsolutePath = regexp.MustCompile(`(/home/|/Users/|/root/|/work/|/tmp/|[A-Z]:\\)`)

var (
	titleRe    = regexp.MustCompile(`^# (\d\d) · \S`)
	numberRe   = regexp.MustCompile(`^(\d\d)-`)
	recapRe    = regexp.MustCompile(`(?i)^##\s+(recap|cheat sheet)\b`)
	installRe  = regexp.MustCompile(`\b(go\s+(get|install)|pip3?\s+install|apt(-get)?\s+install|curl|wget)\b`)
	lessonIDRe = regexp.MustCompile(`^\d\d-[a-z0-9][a-z0-9-]*$`)
)

// ValidLessonID reports whether id has the form NN-topic (lower-case letters, digits, hyphens).
func ValidLessonID(id string) bool { return lessonIDRe.MatchString(id) }

// heading is a "## " section heading found in a Markdown cell.
type heading struct {
	cell  int // 0-based
	title string
}

// Lint checks one notebook against the course's conventions. The path in problems is nb.Path.
func Lint(nb *Notebook, cfg Config) []Problem {
	var ps []Problem
	name := nb.Name()
	add := func(cell int, msg string, args ...any) {
		p := Problem{Notebook: nb.Path, Cell: cell + 1, Msg: fmt.Sprintf(msg, args...)}
		if cell >= 0 && cell < len(nb.Cells) {
			p.Snippet = snippet(nb.Cells[cell])
		}
		ps = append(ps, p)
	}
	whole := func(msg string, args ...any) { add(-1, msg, args...) }

	// Kernel.
	if k := nb.KernelName(); k != Kernel {
		whole("metadata.kernelspec.name is %q, want %q (open it in JupyterLab and pick the course kernel, or edit the metadata)", k, Kernel)
	}

	// Lesson metadata. Lessons get the objectives, recall and recap rules; 00-setup-check does not.
	id, isLesson, present := nb.Lesson()
	num := ""
	if m := numberRe.FindStringSubmatch(name); m != nil {
		num = m[1]
	}
	switch {
	case isLesson && id != name:
		whole(`metadata.whygpu.lesson is %q but the file is %s.ipynb: they must match`, id, name)
	case !present && num != "00":
		whole(`metadata.whygpu.lesson is missing: add "whygpu": {"lesson": %q} to the notebook metadata (or "lesson": false for a notebook that is not a lesson)`, name)
		isLesson = true
	}
	if num == "" || !ValidLessonID(name) {
		whole("file name %q must be NN-topic.ipynb (two digits, a hyphen, lower-case words joined by hyphens)", name+".ipynb")
	}

	// Cells: ids, outputs, paths, Go.
	ids := map[string]int{}
	for i, c := range nb.Cells {
		switch first, dup := ids[c.ID]; {
		case c.ID == "":
			add(i, "the cell has no id (nbformat 4.5 requires one; nbformat warns that it will be an error): run `go run ./cmd/whygpu check -ids` (or save the notebook from JupyterLab)")
		case !cellIDRe.MatchString(c.ID):
			add(i, "cell id %q is not 1–64 letters, digits, '-' or '_' (nbformat 4.5): run `go run ./cmd/whygpu check -ids`", c.ID)
		case dup:
			add(i, "cell id %q is also cell %d's: ids must be unique: run `go run ./cmd/whygpu check -ids`", c.ID, first+1)
		default:
			ids[c.ID] = i
		}
		if m := AbsolutePath.FindString(c.Text()); m != "" {
			add(i, "absolute path %q of an author's machine: use paths relative to the notebook, or results.CacheDir / os.TempDir", m)
		}
		if c.Type != "code" {
			continue
		}
		if len(c.Outputs) > 0 {
			add(i, "outputs must be stripped (%d output(s)): run `go run ./cmd/whygpu check -strip` (or Edit → Clear Outputs of All Cells in JupyterLab, then save)", len(c.Outputs))
		}
		if c.ExecutionCount != nil {
			add(i, "execution_count must be empty (it is %d): clear outputs before saving", *c.ExecutionCount)
		}
		for _, e := range c.Expectations() {
			if e != "chart" && !strings.HasPrefix(e, "re:") {
				add(i, `unknown expectation %q in metadata.whygpu.expect (use "chart" or "re:<regex>")`, e)
			}
		}
		ps = append(ps, lintGo(nb.Path, i, c, cfg)...)
		ps = append(ps, lintBadges(nb.Path, i, c)...)
	}

	// First cell: "# NN · Title", objectives, time.
	if len(nb.Cells) == 0 {
		whole("the notebook has no cells")
		return ps
	}
	first := nb.Cells[0]
	firstLine := strings.TrimSpace(strings.SplitN(first.Text(), "\n", 2)[0])
	switch {
	case first.Type != "markdown":
		add(0, `the first cell must be Markdown starting with "# %s · Title"`, orNN(num))
	case !titleRe.MatchString(firstLine):
		add(0, `the first cell must start with "# %s · Title" (got %q)`, orNN(num), firstLine)
	case num != "" && titleRe.FindStringSubmatch(firstLine)[1] != num:
		add(0, "the title's number %s does not match the file name %s.ipynb", titleRe.FindStringSubmatch(firstLine)[1], name)
	}
	if isLesson && first.Type == "markdown" {
		if !strings.Contains(first.Text(), "**Objectives**") {
			add(0, `the first cell must list the lesson's **Objectives**`)
		}
		if !strings.Contains(first.Text(), "**Time:**") {
			add(0, `the first cell must give an estimated **Time:** (e.g. "**Time:** about 20 minutes")`)
		}
	}

	if isLesson {
		lintSections(nb, add)
		lintExercise(nb, add)
		lintFormulas(nb, num, cfg.Formulas, add)
	}
	return ps
}

// lintExercise checks that a lesson has a learner-arithmetic cell: an applied problem
// (display.Problem, the learner's answer shipped as 0 with the comment "// ← your answer") or a
// formula exercise (display.Exercise, shipped with the placeholder body).
func lintExercise(nb *Notebook, add func(int, string, ...any)) {
	found := false
	for i, c := range nb.Cells {
		if c.Type != "code" {
			continue
		}
		if strings.Contains(c.Text(), ProblemCall) {
			found = true
			if !answerZero.MatchString(c.Text()) {
				add(i, "the applied-problem cell must ship the learner's answer as 0 with the comment %q (e.g. `answer := 0.0 %s, in GB/s`): the worked answer is revealed after an attempt, not typed in the cell", AnswerPlaceholder, AnswerPlaceholder)
			}
		}
		if strings.Contains(c.Text(), ExerciseCall) {
			found = true
			if !strings.Contains(c.Text(), Placeholder) {
				add(i, "the learner-arithmetic cell must declare the learner's function with the body %q (the worked answer belongs in the exercise's fold, not in the cell)", Placeholder)
			}
		}
	}
	if !found {
		add(-1, "a lesson needs a learner-arithmetic cell: an applied problem (%s<lesson>.ProblemX, answer)) or a formula exercise (%s<lesson>.ExerciseX, TheirFunction)) (lessons/AUTHORING.md, \"The learner does the arithmetic\")", ProblemCall, ExerciseCall)
	}
}

// lintFormulas fails a lesson that prints one of its problems' expected formulas in a Markdown cell
// above its last problem cell: the learner would transcribe it instead of working it out.
func lintFormulas(nb *Notebook, num string, formulas []Formula, add func(int, string, ...any)) {
	last := -1
	for i, c := range nb.Cells {
		if c.Type == "code" && strings.Contains(c.Text(), ProblemCall) {
			last = i
		}
	}
	if last < 0 {
		return
	}
	for _, f := range formulas {
		want := normalizeFormula(f.Formula)
		if f.Lesson != num || len([]rune(want)) < 3 {
			continue
		}
		for i, c := range nb.Cells[:last] {
			if c.Type == "markdown" && strings.Contains(normalizeFormula(c.Text()), want) {
				add(i, "prints the expected formula %q of problem %s above its cell (cell %d): the learner must work it out, so say what to find, not the relation", f.Formula, f.Key, last+1)
			}
		}
	}
}

// formulaSigns unifies how a formula may be written: multiplication as ·, division as /, no spaces,
// no Markdown emphasis or code ticks, lower case.
var formulaSigns = strings.NewReplacer("×", "·", "*", "·", "⋅", "·", "÷", "/", "`", "", " ", "", "\t", "", "\n", "", "\u00a0", "", "−", "-")

func normalizeFormula(s string) string {
	s = strings.ReplaceAll(s, "**", "")
	return strings.ToLower(formulaSigns.Replace(s))
}

// lintSections checks that every "## " section but the last is closed by a recall check, and that
// the last is the recap.
func lintSections(nb *Notebook, add func(int, string, ...any)) {
	var hs []heading
	further := -1 // the Going further heading's index in hs
	for i, c := range nb.Cells {
		if c.Type != "markdown" || further >= 0 {
			continue
		}
		for _, t := range markdownHeadings(c.Text()) {
			if t == GoingFurther {
				if !strings.HasPrefix(strings.TrimSpace(c.Text()), GoingFurther) {
					add(i, "the cell with %q must start with it (everything from that cell on is off the main path)", GoingFurther)
				}
				further = len(hs)
				hs = append(hs, heading{cell: i, title: t})
				break
			}
			if strings.HasPrefix(strings.ToLower(t), "## going further") {
				add(i, "write the optional section's heading exactly %q (got %q)", GoingFurther, t)
			}
			hs = append(hs, heading{cell: i, title: t})
		}
	}
	// Everything from "## Going further (optional)" on is off the main path (issue 33): it follows the
	// recap and its sections are not checked here.
	if further >= 0 {
		if further == 0 {
			add(hs[0].cell, "%q cannot come before the main path's sections and recap", GoingFurther)
			return
		}
		hs = hs[:further] // the main path; the recap is its last section
	}
	if len(hs) == 0 {
		add(-1, `a lesson needs sections ("## " headings), each closed by a recall check, and a final "## Recap"`)
		return
	}
	last := hs[len(hs)-1]
	if !recapRe.MatchString(last.title) {
		add(last.cell, `the lesson must end with a recap section: the last "## " heading is %q, want "## Recap" or "## Cheat sheet"`, last.title)
	}
	if len(hs) == 1 {
		add(last.cell, "a lesson needs at least one section with a recall check before the recap")
	}
	for k := 0; k < len(hs)-1; k++ {
		h, next := hs[k], hs[k+1]
		if recapRe.MatchString(h.title) {
			add(h.cell, "%q must be the last section (found %q after it)", h.title, next.title)
			continue
		}
		// Cells strictly inside the section: after the heading's cell, up to the next heading's cell.
		lastCode, lastRecall := -1, -1
		for i := h.cell + 1; i < next.cell; i++ {
			c := nb.Cells[i]
			if c.Type != "code" {
				continue
			}
			lastCode = i
			if strings.Contains(c.Text(), RecallCall) {
				lastRecall = i
			}
		}
		switch {
		case lastRecall < 0:
			add(h.cell, "section %q has no recall check: add a code cell calling %s...) before the next section (cell %d, %q)",
				h.title, RecallCall, next.cell+1, next.title)
		case lastCode != lastRecall:
			add(lastCode, "section %q must be closed by its recall check (cell %d): move this code cell before it, or the recall check after it",
				h.title, lastRecall+1)
		}
	}
}

// markdownHeadings returns the "## " headings of a Markdown cell (outside fenced code blocks).
func markdownHeadings(md string) []string {
	var out []string
	for _, line := range outsideFences(md) {
		if strings.HasPrefix(line, "## ") {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// outsideFences returns the lines of Markdown that are not inside fenced code blocks (``` or ~~~),
// the fence lines themselves left out.
func outsideFences(md string) []string {
	var out []string
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		out = append(out, line)
	}
	return out
}

// lintGo checks a code cell: valid Go after GoNB's transformation, gofmt-clean, allowed imports, no
// shell lines that install things.
func lintGo(path string, i int, c *Cell, cfg Config) []Problem {
	var ps []Problem
	add := func(msg string, args ...any) {
		ps = append(ps, Problem{Notebook: path, Cell: i + 1, Snippet: snippet(c), Msg: fmt.Sprintf(msg, args...)})
	}
	g := ToGo(c.Text())
	for _, l := range g.SpecialLines() {
		if strings.HasPrefix(l, "!") && installRe.MatchString(l) {
			add("shell line %q installs or downloads at run time: the set-up pins everything (add it to go.mod or requirements.txt instead)", strings.TrimSpace(l))
		}
	}
	if _, err := g.Parse(0); err != nil {
		add("not valid Go (as GoNB compiles it: declarations, then %%%% and the statements of main): %v", err)
		return ps
	}
	imports, err := g.Imports()
	if err != nil {
		add("cannot read imports: %v", err)
	}
	paths := make([]string, 0, len(imports))
	for p := range imports {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if !cfg.importAllowed(p) {
			add("line %d: import %q is neither this module (%s), the standard library, nor a module pinned in go.mod (go get module@version first)", imports[p], p, cfg.Module)
		}
	}
	diff, err := GofmtDiff(c.Text())
	switch {
	case err != nil:
		add("gofmt failed: %v", err)
	case diff != "":
		add("not gofmt-clean: %s (statements after %%%% are written unindented)", diff)
	}
	return ps
}

func snippet(c *Cell) string {
	for _, l := range strings.Split(c.Text(), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || l == "%%" {
			continue
		}
		r := []rune(l)
		if len(r) > 40 {
			return c.Type + ": " + string(r[:40]) + "…"
		}
		return c.Type + ": " + l
	}
	return c.Type + ", empty"
}

func orNN(num string) string {
	if num == "" {
		return "NN"
	}
	return num
}
