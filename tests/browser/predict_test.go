//go:build browser

package browser

import (
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// CheckPredictionKept plays a learner on the fixture's prediction cells (cell predictCell holds
// `display.Predict(q, 0)`, cell revealCell `display.Reveal(q)`; the fixture's answer is 42): it
// replaces the 0 with 40 by typing, runs the cell with Shift-Enter, saves, reloads the page, runs
// the reveal cell and checks it compares 40 with 42.
func (p *Page) CheckPredictionKept(predictCell, revealCell int) {
	p.t.Helper()
	if _, err := Eval[any](p.ctx, "cursorAfter", predictCell, "Predict(q, 0"); err != nil {
		p.t.Fatalf("placing the cursor in the prediction cell: %v", err)
	}
	if err := chromedp.Do(p.ctx,
		chromedp.KeyEvent(kb.Backspace),
		chromedp.KeyEvent("40"),
		chromedp.KeyEvent(kb.Enter, chromedp.KeyModifiers(chromedp.ModifierShift)),
	); err != nil {
		p.t.Fatal(err)
	}
	if src, _ := Eval[string](p.ctx, "cellSource", predictCell); !strings.Contains(src, "Predict(q, 40)") {
		p.t.Fatalf("typing did not change the prediction cell: %q", src)
	}
	if _, err := Wait[string](p.ctx, 2*time.Minute, "outputHas", predictCell, "kept: 40"); err != nil {
		p.Shot("prediction-not-kept")
		p.t.Fatalf("running the prediction cell did not say it kept 40: %v", err)
	}
	p.Shot("prediction-kept")
	if _, err := Eval[bool](p.ctx, "save"); err != nil {
		p.t.Fatalf("saving: %v", err)
	}
	if err := chromedp.Do(p.ctx, chromedp.Reload()); err != nil {
		p.t.Fatalf("reloading: %v", err)
	}
	if _, err := Wait[any](p.ctx, 3*time.Minute, "notebookReady", p.Name+".ipynb"); err != nil {
		p.Shot("not-ready-after-reload")
		p.t.Fatalf("the notebook did not come back after a reload: %v", err)
	}
	if _, err := Wait[bool](p.ctx, 30*time.Second, "runCell", revealCell); err != nil {
		p.t.Fatal(err)
	}
	text, err := Wait[string](p.ctx, 2*time.Minute, "outputHas", revealCell, "your prediction")
	if err != nil {
		p.Shot("no-comparison")
		got, _ := Eval[string](p.ctx, "outputText", revealCell)
		p.t.Fatalf("after the reload the reveal cell did not compare with the kept prediction: %v; it shows %q", err, got)
	}
	p.Shot("prediction-compared")
	for _, want := range []string{"40", "42", "1.05"} {
		if !strings.Contains(text, want) {
			p.t.Errorf("the comparison lacks %q: %q", want, text)
		}
	}
	p.t.Logf("after a reload the reveal cell shows: %s", strings.Join(strings.Fields(text), " "))
}
