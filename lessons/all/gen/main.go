// Command gen writes pkg/teach/recall/review.json, the cards of every lesson's deck that the
// spaced-recall reviews draw from (lessons do not import each other). Run it with
// `go generate ./pkg/teach/recall` (from the repository root).
package main

import (
	"fmt"
	"os"

	"github.com/gpu-course/whygpu/lessons/all"
	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

func main() {
	cards, err := recall.ReviewCards(all.Decks()...)
	if err == nil {
		var b []byte
		if b, err = recall.MarshalReview(cards); err == nil {
			err = os.WriteFile("review.json", b, 0o644) // go generate runs in pkg/teach/recall
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("gen: wrote review.json: %d cards\n", len(cards))
}
