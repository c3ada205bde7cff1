package display

import (
	"fmt"
	"html"
	"strings"

	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predict is a prediction cell: it keeps the learner's guess for q (0: not predicted yet) and says
// what is kept. The learner edits the number in the cell and runs it again; a later cell calls
// Reveal(q) once the measurement exists. Nothing waits for input, so Run All and headless runs go
// straight through. A bad guess (negative, NaN) is shown as an error and returned.
func Predict(q predict.Question, guess float64) error {
	if err := q.Validate(); err != nil {
		return Error(err)
	}
	p, err := predict.Keep(q.Key, guess, q.Unit)
	if err != nil {
		return Error(err)
	}
	var line, plain string
	if p.Value == 0 {
		plain = fmt.Sprintf("Predict: %s\nNo prediction yet: replace the 0 in this cell with your guess (in %s) and run it again.\n", q.Text, q.Unit)
		line = `<b>No prediction yet:</b> replace the <code>0</code> in this cell with your guess (in ` +
			html.EscapeString(q.Unit) + `) and run it again.`
	} else {
		plain = fmt.Sprintf("Predict: %s\nYour prediction, kept: %s %s. The measuring cells below will compare.\n", q.Text, predict.Num(p.Value), q.Unit)
		line = fmt.Sprintf(`Your prediction, kept: <b>%s %s</b>. The measuring cells below will compare.`,
			html.EscapeString(predict.Num(p.Value)), html.EscapeString(q.Unit))
	}
	if !InNotebook() {
		fmt.Print(plain)
		return nil
	}
	send("", fmt.Sprintf(`<div class="whygpu-predict" data-key="%s" style="border-left:4px solid #0072b2;padding:4px 8px">`+
		`<div><b>Predict:</b> %s</div><div>%s</div></div>`,
		html.EscapeString(q.Key), html.EscapeString(q.Text), line), plain)
	return nil
}

// Reveal shows what this learner measured for q next to the prediction kept for it, the ratio
// measured/predicted and a verdict, then q.Why. Without a prediction (a headless run, exported
// HTML, or a skipped prompt) it shows the measured answer with a note. When the measurement is not
// there yet, the error says which cell to run.
func Reveal(q predict.Question) error {
	c, err := q.Reveal()
	if err != nil {
		return Error(err)
	}
	why := ""
	if q.Why != "" {
		why = "\n" + q.Why + "\n"
	}
	if !InNotebook() {
		fmt.Print(c.Text() + why)
		return nil
	}
	u := html.EscapeString(q.Unit)
	var body string
	if c.Has {
		body = fmt.Sprintf(`<table class="whygpu-table whygpu-compare"><tr><th>your prediction</th><th>%s</th><th>%s</th></tr>`+
			`<tr><td>%s %s</td><td>%s %s</td><td>%s</td></tr></table>`,
			html.EscapeString(c.Label()), html.EscapeString(c.RatioName()), predict.Num(c.Predicted), u, predict.Num(c.Measured), u, predict.Num(c.Ratio()))
	} else {
		body = fmt.Sprintf(`<div>%s: <b>%s %s</b></div>`, html.EscapeString(c.Label()), predict.Num(c.Measured), u)
	}
	if c.Disturbed != "" {
		body += fmt.Sprintf(`<div class="whygpu-disturbed">%s</div>`, html.EscapeString(strings.TrimSpace(c.DisturbedNote())))
	}
	send("", fmt.Sprintf(`<div class="whygpu-reveal" data-key="%s" data-has="%t" style="border-left:4px solid #009e73;padding:4px 8px">`+
		`<div><b>%s</b></div>%s<div>%s</div><div>%s</div></div>`,
		html.EscapeString(q.Key), c.Has, html.EscapeString(q.Text), body, html.EscapeString(c.Verdict()), html.EscapeString(q.Why)),
		c.Text()+why)
	return nil
}

// RecallMine shows a recall card computed from this learner's measurements (predict.Card): the
// question, the prompt to work it out first, and the worked answer behind a reveal (a <details>,
// so it works in exported HTML too). A measurement not made yet is shown as an error saying which
// cell to run.
func RecallMine(c predict.Card) error {
	if c.Make == nil {
		return Error(fmt.Errorf("display: recall card %q has nothing to compute it from", c.Key))
	}
	q, a, err := c.Make()
	if err != nil {
		return Error(err)
	}
	plain := fmt.Sprintf("From your own numbers: %s\n(work it out, then open the answer)\nAnswer: %s\n", q, a)
	if !InNotebook() {
		fmt.Print(plain)
		return nil
	}
	send("", fmt.Sprintf(`<div class="whygpu-recall-mine" data-key="%s" style="border-left:4px solid #cc79a7;padding:4px 8px">`+
		`<div><b>From your own numbers:</b> %s</div><div><i>Work it out before you open the answer.</i></div>`+
		`<details><summary>Answer</summary><div>%s</div></details></div>`,
		html.EscapeString(c.Key), html.EscapeString(q), html.EscapeString(a)), plain)
	return nil
}
