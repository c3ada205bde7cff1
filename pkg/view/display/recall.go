package display

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

// Recall shows the recall check that closes a section: its question(s), the prompt to say the
// answer aloud first, a reveal per answer, and the lesson's "n of m recalled" count (see package
// recall for how the count behaves live, headless and in exported HTML). Outside a notebook it
// prints the cards as text. An unknown section or an invalid deck is shown as an error and
// returned.
func Recall(deck *recall.Deck, section string) error {
	if deck == nil {
		return Error(fmt.Errorf("display: recall check %q: no deck", section))
	}
	if err := deck.Validate(); err != nil {
		return Error(err)
	}
	text, err := recall.Text(deck, section)
	if err != nil {
		return Error(err)
	}
	if !InNotebook() {
		fmt.Print(text)
		return nil
	}
	page, err := recall.HTML(deck, section)
	if err != nil {
		return Error(err)
	}
	send("", page, text)
	return nil
}
