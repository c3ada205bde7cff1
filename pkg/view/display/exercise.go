package display

import (
	"fmt"
	"html"
	"strings"

	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// Exercise checks the learner's formula fn (their function's name, e.g. CriticalBatch) against
// the course's formula and, where the exercise has one, their own measurement, and shows the
// verdict: a hint on a wrong answer, and the worked answer behind a fold (a <details>, so it works
// in exported HTML too). It never fails the cell: an unanswered placeholder, a wrong formula or a
// function of the wrong shape is shown as such, not as an error (a Run All stays green), and it
// returns the report for a test or a later line to read.
func Exercise(e exercise.Exercise, fn any) exercise.Report {
	r := e.Check(fn)
	showCard(r.Text(), func() string { return exerciseHTML(r) })
	return r
}

// showCard shows a card: its text outside a notebook, its HTML (and the text for text views) in one.
func showCard(text string, htmlOf func() string) {
	if !InNotebook() {
		fmt.Print(text)
		return
	}
	send("", htmlOf(), text)
}

// openCard starts a card's HTML: a div of the class, with its key and status as data attributes
// and a border in the status's colour.
func openCard(b *strings.Builder, class, key, status, color string) {
	fmt.Fprintf(b, `<div class="%s" data-key="%s" data-status="%s" style="border-left:4px solid %s;padding:4px 8px">`,
		class, html.EscapeString(key), html.EscapeString(status), color)
}

// exerciseColors are the verdict's border colours (the Okabe–Ito palette of the other cards).
var exerciseColors = map[exercise.Status]string{
	exercise.Unanswered: "#999999", exercise.Wrong: "#e69f00", exercise.Right: "#009e73", exercise.Invalid: "#d55e00",
}

func exerciseHTML(r exercise.Report) string {
	esc := html.EscapeString
	var b strings.Builder
	openCard(&b, "whygpu-exercise", r.Key, r.Status.String(), exerciseColors[r.Status])
	fmt.Fprintf(&b, `<div><b>Your turn:</b> %s <code>func %s</code></div>`, esc(r.Task), esc(r.Signature))
	fmt.Fprintf(&b, `<div>%s</div>`, esc(r.Headline()))
	if r.Status == exercise.Wrong {
		b.WriteString(`<table class="whygpu-table"><tr><th>inputs</th><th>yours</th><th>course's formula</th><th></th></tr>`)
		for _, row := range r.Rows {
			yours := exercise.Num(row.Yours, r.Unit)
			if row.Panic != "" {
				yours = "panic: " + row.Panic
			}
			mark := "✗"
			if row.OK {
				mark = "✓"
			}
			fmt.Fprintf(&b, `<tr><td>%s: <code>%s</code></td><td>%s</td><td>%s</td><td>%s</td></tr>`,
				esc(row.Name), esc(row.Call(r.Signature)), esc(yours), esc(exercise.Num(row.Course, r.Unit)), mark)
		}
		b.WriteString(`</table>`)
	}
	if r.Status == exercise.Wrong || r.Status == exercise.Invalid {
		fmt.Fprintf(&b, `<div><b>Hint:</b> %s</div>`, esc(r.Hint))
	}
	if l := r.VersusLine(); l != "" {
		fmt.Fprintf(&b, `<div>%s</div>`, esc(l))
	}
	fmt.Fprintf(&b, `<details><summary>Worked answer (open it after you try)</summary><pre>func %s {
	%s
}</pre><div>%s</div></details></div>`, esc(r.Signature), esc(r.Answer), esc(r.Why))
	return b.String()
}

// Problem checks the learner's answer to an applied problem and shows the verdict: 0 is "not
// attempted" (the worked answer stays hidden and the card says how to answer); any other answer
// shows whether it is within the tolerance, a hint when it is not, and the worked steps with their
// numbers. It never fails the cell (a missing measurement is a note saying which cell to run) and
// returns the attempt for a test or a later line to read.
func Problem(p exercise.Problem, answer float64) exercise.Attempt {
	a := p.CheckAnswer(answer)
	showCard(a.Text(), func() string { return problemHTML(a) })
	return a
}

var problemColors = map[exercise.ProblemStatus]string{
	exercise.NotAttempted: "#999999", exercise.Off: "#e69f00", exercise.Close: "#009e73", exercise.Unsolved: "#0072b2",
}

func problemHTML(a exercise.Attempt) string {
	esc := html.EscapeString
	var b strings.Builder
	openCard(&b, "whygpu-problem", a.Key, a.Status.String(), problemColors[a.Status])
	fmt.Fprintf(&b, `<div><b>Problem:</b> %s</div>`, esc(a.Question))
	fmt.Fprintf(&b, `<div>%s</div>`, esc(a.Headline()))
	if a.Status == exercise.Off {
		fmt.Fprintf(&b, `<div><b>Hint:</b> %s</div>`, esc(a.Hint))
	}
	if a.Status == exercise.Off || a.Status == exercise.Close {
		b.WriteString(`<details><summary>Worked answer</summary><ol>`)
		for _, s := range a.Solution.Steps {
			fmt.Fprintf(&b, `<li>%s</li>`, esc(s))
		}
		b.WriteString(`</ol></details>`)
	}
	b.WriteString(`</div>`)
	return b.String()
}
