// Package lessontest holds checks every lesson package's tests share.
package lessontest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/notebook"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

var recallCall = regexp.MustCompile(`display\.Recall\(\w+\.Deck, "([^"]+)"\)`)

// RecallSections checks a lesson's recall deck against its notebook, notebooks/<deck.Lesson>.ipynb
// (run from the lesson package's directory): the deck is valid, every display.Recall call names a
// section of the deck, and every section of the deck is shown. It skips when the notebook is absent.
func RecallSections(t *testing.T, deck *recall.Deck) {
	t.Helper()
	if err := deck.Validate(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "notebooks", deck.Lesson+".ipynb")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no notebook " + path)
	}
	nb, err := notebook.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for i, c := range nb.Cells {
		for _, m := range recallCall.FindAllStringSubmatch(c.Text(), -1) {
			if _, err := deck.Section(m[1]); err != nil {
				t.Errorf("%s cell %d: %v", path, i+1, err)
			}
			used[m[1]] = true
		}
	}
	for _, s := range deck.Sections {
		if !used[s.ID] {
			t.Errorf("%s: deck section %q is never shown: add display.Recall(<pkg>.Deck, %q) at the end of its section", path, s.ID, s.ID)
		}
	}
}

// Deck checks a lesson's recall deck: it is valid and belongs to the lesson with this id.
func Deck(t *testing.T, deck *recall.Deck, lesson string) {
	t.Helper()
	if err := deck.Validate(); err != nil {
		t.Fatal(err)
	}
	if deck.Lesson != lesson {
		t.Errorf("Deck.Lesson = %q, want %q", deck.Lesson, lesson)
	}
}

// Experiments checks that a lesson's Experiments list holds each named experiment (its id is
// "<lesson>/<name>"): what `whygpu record` runs and the notebook recalls.
func Experiments(t *testing.T, list experiments.List, lesson string, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, ok := list.Lookup(lesson + "/" + n); !ok {
			t.Errorf("experiment %s/%s is not in the lesson's Experiments", lesson, n)
		}
	}
}

// Phrases fails t unless text holds every phrase of want and none of notWant: for sentences a lesson
// computes from its results.
func Phrases(t *testing.T, text string, want, notWant []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("missing %q in:\n%s", w, text)
		}
	}
	for _, w := range notWant {
		if strings.Contains(text, w) {
			t.Errorf("unexpected %q in:\n%s", w, text)
		}
	}
}
