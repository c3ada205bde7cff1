package notebook

import (
	"fmt"
	"path/filepath"
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
	paths, err := filepath.Glob(filepath.Join("..", "..", "notebooks", "[01][0-9]-*.ipynb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	total := 0
	var lines []string
	for _, p := range paths {
		name := filepath.Base(p)
		if strings.HasPrefix(name, "00-") {
			continue
		}
		nb, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
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
