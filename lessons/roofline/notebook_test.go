package roofline

import (
	"testing"

	"github.com/gpu-course/whygpu/internal/lessontest"
)

func TestDeck(t *testing.T) {
	if err := Deck.Validate(); err != nil {
		t.Fatal(err)
	}
	if Deck.Lesson != Lesson {
		t.Errorf("Deck.Lesson = %q, want %q", Deck.Lesson, Lesson)
	}
}

// TestNotebookRecallSections checks the recall deck against the notebook's display.Recall calls.
func TestNotebookRecallSections(t *testing.T) { lessontest.RecallSections(t, Deck) }
