package all

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if len(nbs) < 12 {
		t.Fatalf("found %d notebooks, want at least 12", len(nbs))
	}
	for _, p := range nbs {
		id := strings.TrimSuffix(filepath.Base(p), ".ipynb")
		cells, ok := rows[id]
		switch {
		case !ok:
			t.Errorf("README.md's lesson table has no row for %s", id)
		case len(cells) < 3:
			t.Errorf("README.md's row for %s has no regime column", id)
		case id[:2] != "00" && !strings.Contains(cells[len(cells)-1], "bound") && !strings.Contains(cells[len(cells)-1], "capacity"):
			t.Errorf("README.md's row for %s does not name the regime it is about: %q", id, cells[len(cells)-1])
		}
	}
}
