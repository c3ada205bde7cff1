package display

import (
	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

// Review opens lesson (its number, "05") with a spaced-recall review: two or three cards from
// earlier lessons' decks, the ones the learner marked "Not yet" first (the page reads the marks the
// recall checks keep in the browser; headless and in text, a fixed spaced pick). A bad lesson number
// or a missing card file is shown as an error and returned; the kernel stays alive.
func Review(lesson string) error {
	cards, err := recall.Embedded()
	if err != nil {
		return Error(err)
	}
	r, err := recall.ReviewFor(lesson, cards)
	if err != nil {
		return Error(err)
	}
	showCard(r.Text(), r.HTML)
	return nil
}
