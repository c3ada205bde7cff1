package recall_test

import (
	"fmt"
	"strings"

	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

// A lesson declares its deck once; each section of the notebook ends with
// display.Recall(deck, "<section>"), which shows the HTML below in a notebook and the text
// elsewhere.
func Example() {
	deck := &recall.Deck{
		Lesson: "02-roofline", Title: "Arithmetic intensity and the roofline",
		Sections: []recall.Section{
			{ID: "intensity", Title: "FLOPs per byte", Cards: []recall.Card{
				{ID: "matmul", Question: "Why does a large matmul reuse each byte many times?",
					Answer: "Each input element takes part in n multiply-adds: 2n³ FLOPs over 3n² elements."},
			}},
			{ID: "ridge", Title: "The ridge point", Cards: []recall.Card{
				{ID: "where", Question: "Where is a device's ridge point?", Answer: "At peak FLOP/s ÷ memory bandwidth."},
			}},
		},
	}
	if err := deck.Validate(); err != nil {
		panic(err)
	}
	text, _ := recall.Text(deck, "ridge")
	fmt.Print(text)
	page, _ := recall.HTML(deck, "ridge")
	fmt.Println(strings.Contains(page, `<summary>Reveal the answer</summary>`), strings.Contains(page, "0 of 2 recalled"))
	// Output:
	// Recall check — The ridge point (1 of the 2 cards of this lesson)
	// Say the answer aloud before you reveal it.
	//   Q1. Where is a device's ridge point?
	//       Answer: At peak FLOP/s ÷ memory bandwidth.
	// true true
}
