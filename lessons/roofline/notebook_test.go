package roofline

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gpu-course/whygpu/internal/notebook"
)

func TestDeck(t *testing.T) {
	if err := Deck.Validate(); err != nil {
		t.Fatal(err)
	}
	if Deck.Lesson != Lesson {
		t.Errorf("Deck.Lesson = %q, want %q", Deck.Lesson, Lesson)
	}
}

// TestNotebookRecallSections checks that the notebook's display.Recall calls name sections of the
// deck, and that every section of the deck is shown.
func TestNotebookRecallSections(t *testing.T) {
	path := filepath.Join("..", "..", "notebooks", Lesson+".ipynb")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no notebook " + path)
	}
	nb, err := notebook.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`display\.Recall\(\w+\.Deck, "([^"]+)"\)`)
	used := map[string]bool{}
	for i, c := range nb.Cells {
		for _, m := range call.FindAllStringSubmatch(c.Text(), -1) {
			if _, err := Deck.Section(m[1]); err != nil {
				t.Errorf("cell %d: %v", i+1, err)
			}
			used[m[1]] = true
		}
	}
	for _, s := range Deck.Sections {
		if !used[s.ID] {
			t.Errorf("deck section %q is never shown", s.ID)
		}
	}
}
