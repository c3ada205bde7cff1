package all

import (
	"github.com/gpu-course/whygpu/lessons/batching"
	"github.com/gpu-course/whygpu/lessons/bigpicture"
	"github.com/gpu-course/whygpu/lessons/capstone"
	"github.com/gpu-course/whygpu/lessons/datamovement"
	"github.com/gpu-course/whygpu/lessons/dataparallel"
	"github.com/gpu-course/whygpu/lessons/feeding"
	"github.com/gpu-course/whygpu/lessons/memory"
	"github.com/gpu-course/whygpu/lessons/precision"
	"github.com/gpu-course/whygpu/lessons/race"
	"github.com/gpu-course/whygpu/lessons/roofline"
	"github.com/gpu-course/whygpu/lessons/smallgpt"
	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

// Decks is every lesson's recall deck, in lesson order: the spaced-recall review that opens each
// lesson draws its cards from them (pkg/teach/recall's review.json, written by `go generate ./pkg/teach/recall`).
func Decks() []*recall.Deck {
	return []*recall.Deck{race.Deck, roofline.Deck, batching.Deck, datamovement.Deck, precision.Deck, memory.Deck,
		feeding.Deck, bigpicture.Deck, smallgpt.Deck, dataparallel.Deck, capstone.Deck}
}
