package all

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/notebook"
)

// TestReadmeListsEveryLesson: the README's lesson table has a row for every notebook, with the
// regime the lesson is about (compute-bound, memory-bandwidth-bound, overhead-bound, or what else
// bounds it) in its last column.
func TestReadmeListsEveryLesson(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(l, "|"), "|")
		rows[strings.Trim(strings.TrimSpace(cells[0]), "`")] = cells
	}
	nbs, _ := filepath.Glob("../../notebooks/[01][0-9]-*.ipynb")
	if len(nbs) == 0 {
		t.Fatal("no notebooks found")
	}
	for _, p := range nbs {
		id := strings.TrimSuffix(filepath.Base(p), ".ipynb")
		cells, ok := rows[id]
		switch {
		case !ok:
			report(t, id[:2], "README.md's lesson table has no row for %s", id)
		case len(cells) < 3:
			report(t, id[:2], "README.md's row for %s has no regime column", id)
		case id[:2] != "00" && !strings.Contains(cells[len(cells)-1], "bound") && !strings.Contains(cells[len(cells)-1], "capacity"):
			report(t, id[:2], "README.md's row for %s does not name the regime it is about: %q", id, cells[len(cells)-1])
		}
	}
}

// TestEveryRecapNamesItsRegime: lesson 01 introduces the three regimes and the time budget in its
// first section, and every lesson's recap (its last section) says which regime it was about.
func TestEveryRecapNamesItsRegime(t *testing.T) {
	nbs, _ := filepath.Glob("../../notebooks/[01][0-9]-*.ipynb")
	for _, p := range nbs {
		name := filepath.Base(p)
		if name[:2] == "00" {
			continue
		}
		nb, err := notebook.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		recap, first := "", ""
		for _, c := range nb.Cells {
			s := string(c.Source)
			if strings.HasPrefix(s, "## ") && first == "" {
				first = s
			}
			if strings.HasPrefix(s, "## Recap") || strings.HasPrefix(s, "## Cheat sheet") {
				recap = ""
			}
			recap += s + "\n"
		}
		if !strings.Contains(recap, "**Which regime?**") || !strings.Contains(recap, "bound") {
			report(t, name[:2], "%s: the recap does not name the lesson's regime (a **Which regime?** line)", name)
		}
		if name[:2] == "01" && (!strings.HasPrefix(first, "## What limits the time") || !strings.Contains(first, "T_compute") || !strings.Contains(first, "twice the bytes")) {
			t.Errorf("%s: the first section is not the three regimes, the time budget and the FLOPs-or-bytes test: %.60q", name, first)
		}
		for _, old := range []string{"double the work — does the time double", "barely moves, it is overhead-bound", "time barely moves: overhead-bound"} {
			if strings.Contains(strings.Join(nbText(nb), "\n"), old) {
				t.Errorf("%s teaches the doubling verdict (%q): a flat time is overhead-bound only when neither time budget explains it", name, old)
			}
		}
	}
}

func nbText(nb *notebook.Notebook) []string {
	var out []string
	for _, c := range nb.Cells {
		out = append(out, string(c.Source))
	}
	return out
}
