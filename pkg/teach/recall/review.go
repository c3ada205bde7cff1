package recall

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The spaced-recall review that opens lessons 02–11: two or three cards from EARLIER lessons. Lessons
// do not import each other, so the cards come from review.json, generated from every lesson's deck
// by `go generate ./pkg/teach/recall` (lessons/all/gen; lessons/all's TestReviewCardsAreCurrent checks it).
//
// Which cards: without marks, a fixed spaced pick (the lesson before, one a few lessons back, an
// older one). The learner's marks live in the browser (localStorage "whygpu-recall/<lesson>/<card>",
// as the decks' recall checks store them), so the pick is re-ordered there: the page carries every
// earlier card, and its script shows the cards the learner marked "Not yet" first. Headless and in
// text the fixed pick is shown.

//go:generate go run ../../../lessons/all/gen

//go:embed review.json
var reviewJSON []byte

// ReviewCard is one card of a lesson's deck, as the review shows it.
type ReviewCard struct {
	Lesson   string `json:"lesson"`  // the deck's Lesson, e.g. "01-race" (it keys the learner's marks)
	Number   string `json:"number"`  // "01"
	Title    string `json:"title"`   // the deck's title
	Section  string `json:"section"` // the section's title
	Key      string `json:"key"`     // "<section>/<card>", as Deck.Keys
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// ReviewCards lists every card of decks, in order: what review.json holds.
func ReviewCards(decks ...*Deck) ([]ReviewCard, error) {
	var out []ReviewCard
	for _, d := range decks {
		if err := d.Validate(); err != nil {
			return nil, err
		}
		num := lessonNumber.FindString(d.Lesson)
		if num == "" {
			return nil, fmt.Errorf("recall: deck %q: the lesson ID does not start with its number (NN-)", d.Lesson)
		}
		for _, s := range d.Sections {
			for i, c := range s.Cards {
				out = append(out, ReviewCard{Lesson: d.Lesson, Number: num[:2], Title: d.Title, Section: s.Title,
					Key: s.ID + "/" + cardID(c, i), Question: c.Question, Answer: c.Answer})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Number < out[j].Number })
	return out, nil
}

var lessonNumber = regexp.MustCompile(`^\d\d-`)

// MarshalReview is review.json's content for cards.
func MarshalReview(cards []ReviewCard) ([]byte, error) {
	b, err := json.MarshalIndent(cards, "", "  ")
	return append(b, '\n'), err
}

// Embedded returns the cards embedded from review.json.
func Embedded() ([]ReviewCard, error) {
	var cards []ReviewCard
	if err := json.Unmarshal(reviewJSON, &cards); err != nil {
		return nil, fmt.Errorf("recall: review.json: %w (run `go generate ./pkg/teach/recall`)", err)
	}
	return cards, nil
}

// ReviewSize is how many cards a review shows.
const ReviewSize = 3

// Review is the review opening lesson (its number, "05"): Shown are the fixed spaced pick, Pool
// every card of the earlier lessons (the page re-orders it by the learner's misses).
type Review struct {
	Lesson string
	Shown  []ReviewCard
	Pool   []ReviewCard
}

// ReviewFor builds the review opening lesson number from cards: up to ReviewSize cards of lessons
// before it, spaced — the lesson just before, one two or three lessons back, and an older one — each
// lesson's card chosen by the lesson number so that two reviews do not show the same cards.
func ReviewFor(lesson string, cards []ReviewCard) (Review, error) {
	n, err := strconv.Atoi(lesson)
	if err != nil || len(lesson) != 2 || n < 1 {
		return Review{}, fmt.Errorf("recall: review %q: want a lesson number such as \"05\"", lesson)
	}
	r := Review{Lesson: lesson}
	byLesson := map[int][]ReviewCard{}
	for _, c := range cards {
		if c.Number < lesson {
			r.Pool = append(r.Pool, c)
			k, _ := strconv.Atoi(c.Number)
			byLesson[k] = append(byLesson[k], c)
		}
	}
	if len(r.Pool) == 0 {
		return Review{}, fmt.Errorf("recall: review %s: no cards from earlier lessons (lesson 01 opens without a review)", lesson)
	}
	// The spaced lessons, most recent first, then any earlier lesson to fill up.
	var order []int
	for _, k := range []int{n - 1, n - 3, n - 2, (n*7)%max(1, n-3) + 1} {
		order = append(order, k)
	}
	for k := n - 1; k >= 0; k-- {
		order = append(order, k)
	}
	seen := map[string]bool{}
	for pass := 0; len(r.Shown) < ReviewSize && pass < ReviewSize; pass++ {
		for _, k := range order {
			cs := byLesson[k]
			if len(r.Shown) == ReviewSize || len(cs) == 0 {
				continue
			}
			for i := range cs {
				c := cs[(n*5+i+pass)%len(cs)]
				if !seen[c.Lesson+"/"+c.Key] {
					seen[c.Lesson+"/"+c.Key] = true
					r.Shown = append(r.Shown, c)
					break
				}
			}
		}
	}
	return r, nil
}

// ReviewPrompt heads every review.
const ReviewPrompt = "From earlier lessons: say the answer aloud before you reveal it. Cards you marked “Not yet” come first."

// Text renders the review's fixed pick as plain text, answers indented under their questions.
func (r Review) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Review before lesson %s — %s\n", r.Lesson, ReviewPrompt)
	for i, c := range r.Shown {
		fmt.Fprintf(&b, "  Q%d (lesson %s). %s\n", i+1, c.Number, oneLine(c.Question))
		fmt.Fprintf(&b, "      Answer: %s\n", oneLine(c.Answer))
	}
	return b.String()
}

// HTML renders the review: every card of the pool, those outside the fixed pick hidden; the script
// moves the cards the learner marked "Not yet" to the front and shows the first ReviewSize. Marks
// are read and written under the same keys as the lessons' recall checks.
func (r Review) HTML() string {
	shown := map[string]int{}
	for i, c := range r.Shown {
		shown[c.Lesson+"/"+c.Key] = i
	}
	var b strings.Builder
	b.WriteString(style)
	fmt.Fprintf(&b, `<div class="whygpu-recall whygpu-review" data-review-lesson="%s" data-review-size="%d">`, attr(r.Lesson), ReviewSize)
	fmt.Fprintf(&b, `<div class="whygpu-recall-head"><span class="whygpu-recall-title">Review · before lesson %s</span></div>`, attr(r.Lesson))
	fmt.Fprintf(&b, `<p class="whygpu-recall-prompt">%s</p>`, html.EscapeString(ReviewPrompt))
	// The fixed pick first, in its order, then the rest of the pool hidden.
	pool := append([]ReviewCard(nil), r.Shown...)
	for _, c := range r.Pool {
		if _, ok := shown[c.Lesson+"/"+c.Key]; !ok {
			pool = append(pool, c)
		}
	}
	for i, c := range pool {
		hidden := ""
		if i >= len(r.Shown) {
			hidden = " hidden"
		}
		fmt.Fprintf(&b, `<div class="whygpu-recall-card" data-review-card-lesson="%s" data-recall-card="%s" data-recall-state=""%s>`, attr(c.Lesson), attr(c.Key), hidden)
		fmt.Fprintf(&b, `<div class="whygpu-recall-q"><b>Lesson %s.</b> %s</div>`, attr(c.Number), inline(c.Question))
		b.WriteString(revealHTML(c.Answer))
	}
	b.WriteString(`</div>`)
	b.WriteString(reviewScript)
	return b.String()
}

// reviewScript orders each review's cards (misses first, then the fixed pick), shows the first
// data-review-size and wires the grade buttons to the lessons' keys.
const reviewScript = `<script>
(function () {
  function key(lesson, card) { return "whygpu-recall/" + lesson + "/" + card; }
  function get(k) { try { return window.localStorage.getItem(k) || ""; } catch (e) { return ""; } }
  function set(k, v) { try { window.localStorage.setItem(k, v); } catch (e) {} }
  document.querySelectorAll(".whygpu-review:not([data-review-ready])").forEach(function (root) {
    root.setAttribute("data-review-ready", "1");
    var size = parseInt(root.getAttribute("data-review-size"), 10) || 3;
    var cards = Array.prototype.slice.call(root.querySelectorAll("[data-review-card-lesson]"));
    var k = function (c) { return key(c.getAttribute("data-review-card-lesson"), c.getAttribute("data-recall-card")); };
    var missed = cards.filter(function (c) { return get(k(c)) === "no"; });
    var rest = cards.filter(function (c) { return get(k(c)) !== "no"; });
    missed.concat(rest).forEach(function (c, i) {
      c.hidden = i >= size;
      c.setAttribute("data-recall-state", get(k(c)));
      root.appendChild(c);
      var grade = c.querySelector(".whygpu-recall-grade");
      if (grade) { grade.hidden = false; }
      c.querySelectorAll("[data-recall-grade]").forEach(function (btn) {
        btn.addEventListener("click", function (ev) {
          ev.preventDefault();
          set(k(c), btn.getAttribute("data-recall-grade"));
          c.setAttribute("data-recall-state", btn.getAttribute("data-recall-grade"));
        });
      });
    });
  });
})();
</script>`
