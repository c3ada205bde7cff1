package recall

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
)

// Card is one question and its answer.
type Card struct {
	// ID identifies the card within its section, stable across edits of the text, so that a
	// learner's marks survive (letters, digits, '-', '_'). Empty: its 1-based position.
	ID string
	// Question and Answer are plain text; `backticks` mark code, a blank line starts a paragraph.
	Question, Answer string
}

// Section is the recall check closing one section of a lesson.
type Section struct {
	// ID identifies the section within the deck (letters, digits, '-', '_').
	ID string
	// Title is the section's heading, shown on the card.
	Title string
	Cards []Card // the section's questions, in order
}

// Deck is every recall card of one lesson.
type Deck struct {
	// Lesson identifies the lesson, e.g. "01-latency-throughput" (it keys the learner's marks).
	Lesson string
	// Title is the lesson's title.
	Title    string
	Sections []Section // in the lesson's order
}

// Total is the number of cards in the deck: the m of "n of m recalled".
func (d *Deck) Total() int {
	n := 0
	for _, s := range d.Sections {
		n += len(s.Cards)
	}
	return n
}

// Keys returns every card's key, "<section>/<card>", in deck order.
func (d *Deck) Keys() []string {
	var keys []string
	for _, s := range d.Sections {
		for i, c := range s.Cards {
			keys = append(keys, s.ID+"/"+cardID(c, i))
		}
	}
	return keys
}

// Section returns the section with the given ID.
func (d *Deck) Section(id string) (Section, error) {
	for _, s := range d.Sections {
		if s.ID == id {
			return s, nil
		}
	}
	ids := make([]string, len(d.Sections))
	for i, s := range d.Sections {
		ids[i] = s.ID
	}
	return Section{}, fmt.Errorf("recall: lesson %q has no section %q (it has: %s)", d.Lesson, id, strings.Join(ids, ", "))
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// Validate checks the deck: a lesson ID, at least one section, section and card IDs well formed
// and unique, every card with a question and an answer.
func (d *Deck) Validate() error {
	var errs []error
	if !idPattern.MatchString(d.Lesson) {
		errs = append(errs, fmt.Errorf("lesson ID %q must be letters, digits, '-' or '_'", d.Lesson))
	}
	if len(d.Sections) == 0 {
		errs = append(errs, errors.New("no sections"))
	}
	seen := map[string]bool{}
	for _, s := range d.Sections {
		if !idPattern.MatchString(s.ID) {
			errs = append(errs, fmt.Errorf("section ID %q must be letters, digits, '-' or '_'", s.ID))
		}
		if seen[s.ID] {
			errs = append(errs, fmt.Errorf("section %q appears twice", s.ID))
		}
		seen[s.ID] = true
		if len(s.Cards) == 0 {
			errs = append(errs, fmt.Errorf("section %q has no cards", s.ID))
		}
		cards := map[string]bool{}
		for i, c := range s.Cards {
			id := cardID(c, i)
			if !idPattern.MatchString(id) {
				errs = append(errs, fmt.Errorf("card ID %q in section %q must be letters, digits, '-' or '_'", id, s.ID))
			}
			if cards[id] {
				errs = append(errs, fmt.Errorf("card %q appears twice in section %q", id, s.ID))
			}
			cards[id] = true
			if strings.TrimSpace(c.Question) == "" || strings.TrimSpace(c.Answer) == "" {
				errs = append(errs, fmt.Errorf("card %s/%s needs a question and an answer", s.ID, id))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("recall: deck %q: %w", d.Lesson, err)
	}
	return nil
}

func cardID(c Card, i int) string {
	if c.ID != "" {
		return c.ID
	}
	return strconv.Itoa(i + 1)
}

// Prompt is the instruction shown on every recall check.
const Prompt = "Say the answer aloud before you reveal it."

// Text renders a section's recall check as plain text, answers included (indented under their
// questions): for runs outside a notebook, and as the text/plain alternative of the HTML.
func Text(d *Deck, section string) (string, error) {
	s, err := d.Section(section)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Recall check — %s (%d of the %d cards of this lesson)\n%s\n", s.Title, len(s.Cards), d.Total(), Prompt)
	for i, c := range s.Cards {
		fmt.Fprintf(&b, "  Q%d. %s\n", i+1, oneLine(c.Question))
		fmt.Fprintf(&b, "      Answer: %s\n", oneLine(c.Answer))
	}
	return b.String(), nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// HTML renders a section's recall check: title, prompt, each question with its answer hidden in a
// <details> reveal, the grading buttons, the lesson's "n of m recalled" counter, a style block and
// the small script that keeps the count (see the package documentation).
func HTML(d *Deck, section string) (string, error) {
	s, err := d.Section(section)
	if err != nil {
		return "", err
	}
	keys, err := json.Marshal(d.Keys())
	if err != nil {
		return "", err
	}
	total := d.Total()
	var b strings.Builder
	b.WriteString(style)
	fmt.Fprintf(&b, `<div class="whygpu-recall" data-recall-lesson="%s" data-recall-section="%s" data-recall-total="%d" data-recall-cards="%s">`,
		attr(d.Lesson), attr(s.ID), total, attr(string(keys)))
	fmt.Fprintf(&b, `<div class="whygpu-recall-head"><span class="whygpu-recall-title">Recall check · %s</span>`+
		`<span class="whygpu-recall-count" data-recall-count="0">0 of %d recalled</span></div>`, html.EscapeString(s.Title), total)
	fmt.Fprintf(&b, `<p class="whygpu-recall-prompt">%s</p>`, html.EscapeString(Prompt))
	for i, c := range s.Cards {
		key := s.ID + "/" + cardID(c, i)
		fmt.Fprintf(&b, `<div class="whygpu-recall-card" data-recall-card="%s" data-recall-state="">`, attr(key))
		fmt.Fprintf(&b, `<div class="whygpu-recall-q"><b>Q%d.</b> %s</div>`, i+1, inline(c.Question))
		b.WriteString(revealHTML(c.Answer))
	}
	b.WriteString(`<div class="whygpu-recall-foot"><a href="#" class="whygpu-recall-reset" data-recall-reset hidden>reset this lesson's marks</a></div>`)
	b.WriteString(`</div>`)
	b.WriteString(script)
	return b.String(), nil
}

// revealHTML is a card's hidden answer and its grading buttons, closing the card's <div>.
func revealHTML(answer string) string {
	return `<details class="whygpu-recall-reveal"><summary>Reveal the answer</summary>` +
		`<div class="whygpu-recall-answer">` + inline(answer) + `</div>` +
		`<div class="whygpu-recall-grade" hidden>Did you have it? ` +
		`<button type="button" data-recall-grade="yes">✓ I had it</button> ` +
		`<button type="button" data-recall-grade="no">✗ Not yet</button></div>` +
		`</details></div>`
}

func attr(s string) string { return html.EscapeString(s) }

var codeSpan = regexp.MustCompile("`([^`]+)`")

// inline escapes text and renders `code` spans, paragraphs (blank lines) and line breaks.
func inline(s string) string {
	paras := regexp.MustCompile(`\n\s*\n`).Split(strings.TrimSpace(s), -1)
	for i, p := range paras {
		p = html.EscapeString(strings.TrimSpace(p))
		p = codeSpan.ReplaceAllString(p, "<code>$1</code>")
		paras[i] = strings.ReplaceAll(p, "\n", "<br>")
	}
	if len(paras) == 1 {
		return paras[0]
	}
	return "<p>" + strings.Join(paras, "</p><p>") + "</p>"
}

// style reads in JupyterLab's light and dark themes (its CSS variables, with fallbacks for
// exported pages).
const style = `<style>
.whygpu-recall{border-left:4px solid #009e73;background:var(--jp-layout-color2,#f4f7f5);color:var(--jp-content-font-color1,#222);padding:8px 12px;margin:6px 0;border-radius:4px;font-family:var(--jp-content-font-family,sans-serif);max-width:56em}
.whygpu-recall-head{display:flex;justify-content:space-between;gap:1em;font-weight:600}
.whygpu-recall-count{color:#009e73;white-space:nowrap}
.whygpu-recall-prompt{margin:4px 0 8px;font-style:italic;color:var(--jp-content-font-color2,#555)}
.whygpu-recall-card{margin:6px 0;padding:4px 0;border-top:1px solid var(--jp-border-color2,#ddd)}
.whygpu-recall-card[data-recall-state="yes"] .whygpu-recall-q::after{content:"  ✓ recalled";color:#009e73;font-weight:600}
.whygpu-recall-card[data-recall-state="no"] .whygpu-recall-q::after{content:"  ↻ not yet";color:#d55e00;font-weight:600}
.whygpu-recall-reveal summary{cursor:pointer;color:var(--jp-brand-color1,#0072b2);margin-top:4px}
.whygpu-recall-answer{margin:6px 0 4px 1em;padding-left:8px;border-left:2px solid var(--jp-border-color1,#bbb)}
.whygpu-recall-answer p{margin:0 0 4px}
.whygpu-recall-grade{margin:4px 0 0 1em;font-size:90%}
.whygpu-recall-grade button{cursor:pointer;margin-right:4px}
.whygpu-recall-foot{text-align:right;font-size:80%}
.whygpu-recall-foot a{color:var(--jp-content-font-color2,#555)}
</style>`

// script keeps the count. It is the same in every recall check: the first run defines
// window.whygpuRecall, each run initializes the recall checks not yet initialized on the page.
const script = `<script>
(function () {
  var V = 1, W = window.whygpuRecall;
  if (!W || W.version !== V) {
    var mem = {};
    W = window.whygpuRecall = {
      version: V,
      key: function (lesson, card) { return "whygpu-recall/" + lesson + "/" + card; },
      get: function (k) { try { return window.localStorage.getItem(k) || ""; } catch (e) { return mem[k] || ""; } },
      set: function (k, v) { try { if (v) { window.localStorage.setItem(k, v); } else { window.localStorage.removeItem(k); } } catch (e) { mem[k] = v; } },
      roots: function (lesson) {
        return Array.prototype.filter.call(document.querySelectorAll(".whygpu-recall"), function (r) { return r.getAttribute("data-recall-lesson") === lesson; });
      },
      refresh: function (lesson) {
        W.roots(lesson).forEach(function (root) {
          var keys = [];
          try { keys = JSON.parse(root.getAttribute("data-recall-cards")) || []; } catch (e) {}
          var n = keys.filter(function (k) { return W.get(W.key(lesson, k)) === "yes"; }).length;
          root.querySelectorAll(".whygpu-recall-count").forEach(function (c) {
            c.textContent = n + " of " + keys.length + " recalled";
            c.setAttribute("data-recall-count", String(n));
          });
          root.querySelectorAll("[data-recall-card]").forEach(function (card) {
            card.setAttribute("data-recall-state", W.get(W.key(lesson, card.getAttribute("data-recall-card"))));
          });
        });
      },
      init: function (root) {
        if (root.getAttribute("data-recall-ready")) { return; }
        root.setAttribute("data-recall-ready", "1");
        var lesson = root.getAttribute("data-recall-lesson");
        root.querySelectorAll("[data-recall-card]").forEach(function (card) {
          var k = W.key(lesson, card.getAttribute("data-recall-card"));
          var grade = card.querySelector(".whygpu-recall-grade");
          if (grade) { grade.hidden = false; }
          card.querySelectorAll("[data-recall-grade]").forEach(function (btn) {
            btn.addEventListener("click", function (ev) {
              ev.preventDefault();
              W.set(k, btn.getAttribute("data-recall-grade"));
              W.refresh(lesson);
            });
          });
        });
        var reset = root.querySelector("[data-recall-reset]");
        if (reset) {
          reset.hidden = false;
          reset.addEventListener("click", function (ev) {
            ev.preventDefault();
            var keys = [];
            try { keys = JSON.parse(root.getAttribute("data-recall-cards")) || []; } catch (e) {}
            keys.forEach(function (c) { W.set(W.key(lesson, c), ""); });
            W.refresh(lesson);
          });
        }
        W.refresh(lesson);
      }
    };
  }
  document.querySelectorAll(".whygpu-recall").forEach(W.init);
})();
</script>`
