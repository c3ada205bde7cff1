package roofline

import (
	"testing"

	"github.com/gpu-course/whygpu/internal/lessontest"
)

func TestDeck(t *testing.T) { lessontest.Deck(t, Deck, Lesson) }

// TestNotebookRecallSections checks the recall deck against the notebook's display.Recall calls.
func TestNotebookRecallSections(t *testing.T) { lessontest.RecallSections(t, Deck) }
