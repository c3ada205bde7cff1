package notebook

import (
	"fmt"
	"iter"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestMainPathWords(t *testing.T) {
	nb := &Notebook{Cells: []*Cell{
		md("# 01 · Title\n\nTwo words — and **five** here.\n\n| a | b |\n| --- | --- |\n"),
		code("fmt.Println(\"not counted\")"),
		md("Before the fence.\n```python\nimport torch\nx = 1\n```\nafter <b>it</b>: 2·B·D·H"),
		md(GoingFurther + "\n\nNot on the main path at all."),
		md("## Recap\nnot counted either"),
	}}
	// "01 Title Two words and five here. a b" = 9; "Before the fence. after it: 2·B·D·H" = 6.
	if got := MainPathWords(nb); got != 15 {
		t.Errorf("MainPathWords = %d, want 15", got)
	}
}

// TestWordBudget holds lessons 01–11 to the budget of issue 33: main-path Markdown words (fenced code
// and everything from "## Going further (optional)" on not counted) ≤ 1,300 a lesson and ≤ 12,000 in
// total, so that a lesson is read in its time. `whygpu check -words` prints the counts.
func TestWordBudget(t *testing.T) {
	total := 0
	var lines []string
	for name, nb := range lessons(t) {
		n := MainPathWords(nb)
		total += n
		over := ""
		if n > WordBudgetLesson {
			over = fmt.Sprintf("  over the %d of a lesson", WordBudgetLesson)
			t.Errorf("%s: %d main-path words, over the %d of a lesson: cut, or move what is off the lesson's point after %q", name, n, WordBudgetLesson, GoingFurther)
		}
		lines = append(lines, fmt.Sprintf("%-32s %6d%s", name, n, over))
	}
	if total > WordBudgetTotal {
		t.Errorf("lessons 01–11: %d main-path words, over the budget of %d", total, WordBudgetTotal)
	}
	t.Logf("main-path Markdown words (fenced code and Going further not counted):\n%s\n%-32s %6d (budget %d)",
		strings.Join(lines, "\n"), "total 01–11", total, WordBudgetTotal)
}

// timeWords reads the words a lesson's "**Time:**" line says it has: "(1,050 words at 200 a minute)".
var timeWords = regexp.MustCompile(`\*\*Time:\*\*[^\n]*?\(([0-9,]+) words at 200 a minute\)`)

// TestTimeLineCountsTheWords: each lesson's Time line states its reading time from its main-path word
// count (issue 33: "about N minutes" = headless run time + reading at 200 words a minute); when the
// prose is cut or grows, the stated count must follow it to within 10%.
func TestTimeLineCountsTheWords(t *testing.T) {
	for name, nb := range lessons(t) {
		m := timeWords.FindStringSubmatch(nb.Cells[0].Text())
		if m == nil {
			t.Errorf("%s: its first cell has no \"**Time:** … (N words at 200 a minute)\" line", name)
			continue
		}
		said, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		if n := MainPathWords(nb); math.Abs(float64(said-n)) > 0.1*float64(n) {
			t.Errorf("%s: its Time line says %d words, its main path has %d: restate the reading time", name, said, n)
		}
	}
}

// lessons yields lessons 01–11 (notebooks/NN-*.ipynb but 00), by file name, in order.
func lessons(t *testing.T) iter.Seq2[string, *Notebook] {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "notebooks", "[01][0-9]-*.ipynb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	return func(yield func(string, *Notebook) bool) {
		for _, p := range paths {
			name := filepath.Base(p)
			if strings.HasPrefix(name, "00-") {
				continue
			}
			nb, err := Read(p)
			if err != nil {
				t.Fatal(err)
			}
			if !yield(name, nb) {
				return
			}
		}
	}
}
