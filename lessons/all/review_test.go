package all

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

// TestReviewCardsAreCurrent checks pkg/teach/recall/review.json still holds the lessons' decks. Decks
// change as lessons are edited, so a few changed cards are only logged (regenerate when convenient:
// `go generate ./pkg/teach/recall`); the test fails when a lesson's deck is missing from the file or more
// than a quarter of the file's cards are no longer in any deck.
func TestReviewCardsAreCurrent(t *testing.T) {
	want, err := recall.ReviewCards(Decks()...)
	if err != nil {
		t.Fatal(err)
	}
	got, err := recall.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	id := func(c recall.ReviewCard) string {
		return c.Lesson + "/" + c.Key + "\x00" + c.Question + "\x00" + c.Answer
	}
	current, lessons := map[string]bool{}, map[string]bool{}
	for _, c := range want {
		current[id(c)] = true
	}
	gone := 0
	for _, c := range got {
		lessons[c.Lesson] = true
		if !current[id(c)] {
			gone++
		}
	}
	for _, d := range Decks() {
		if !lessons[d.Lesson] {
			t.Errorf("review.json has no card of %s: run `go generate ./pkg/teach/recall`", d.Lesson)
		}
	}
	if gone > 0 || len(got) != len(want) {
		t.Logf("review.json differs from the decks: %d of its %d cards changed, the decks have %d: run `go generate ./pkg/teach/recall`", gone, len(got), len(want))
	}
	if gone*4 > len(got) {
		t.Errorf("review.json is stale (%d of %d cards changed): run `go generate ./pkg/teach/recall`", gone, len(got))
	}
}

// TestReviews: every lesson 02–11 gets two or three cards, all from earlier lessons, not all from
// one lesson when more than one came before, and no two reviews show the same three cards.
func TestReviews(t *testing.T) {
	cards, err := recall.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for n := 2; n <= 11; n++ {
		lesson := fmt.Sprintf("%02d", n)
		r, err := recall.ReviewFor(lesson, cards)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Shown) < 2 || len(r.Shown) > recall.ReviewSize {
			t.Errorf("review %s: %d cards", lesson, len(r.Shown))
		}
		from := map[string]bool{}
		var keys []string
		for _, c := range r.Shown {
			if c.Number >= lesson {
				t.Errorf("review %s shows a card of lesson %s", lesson, c.Number)
			}
			from[c.Number] = true
			keys = append(keys, c.Lesson+"/"+c.Key)
		}
		if n > 2 && len(from) < 2 {
			t.Errorf("review %s: all cards from lesson(s) %v", lesson, from)
		}
		if !from[fmt.Sprintf("%02d", n-1)] {
			t.Errorf("review %s: no card of the lesson just before", lesson)
		}
		k := strings.Join(keys, " ")
		if other, dup := seen[k]; dup {
			t.Errorf("reviews %s and %s show the same cards", other, lesson)
		}
		seen[k] = lesson
		if h := r.HTML(); !strings.Contains(h, `data-review-lesson="`+lesson+`"`) || strings.Count(h, "data-review-card-lesson=") != len(r.Pool) {
			t.Errorf("review %s: the page does not carry the %d cards of the pool", lesson, len(r.Pool))
		}
	}
	if _, err := recall.ReviewFor("01", cards); err == nil {
		t.Error("lesson 01 has no earlier lesson: want an error")
	}
	if _, err := recall.ReviewFor("5", cards); err == nil {
		t.Error(`"5": want an error (two digits)`)
	}
}
