//go:build browser

package browser

import (
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// CheckAutocomplete types `display.` in a new cell, presses Tab as a learner does, and checks that
// JupyterLab's completer offers the package's functions (Markdown, Table, Chart). The course's GoNB
// reaches gopls within a second (kernels/gonb/connect-poll.patch; upstream waits 12 s), but gopls may
// still be loading on a busy machine, so a Tab is retried (each try waits up to 30 s for the list)
// before the check fails; the time it took and the Tabs it needed are logged, never checked (a
// second Tab means JupyterLab dropped the first answer: see kernels/jupyterlab/overrides.json).
func (p *Page) CheckAutocomplete() {
	p.t.Helper()
	t0 := time.Now()
	items, tabs, err := p.complete("%%\ndisplay.", 4)
	if err != nil {
		p.Shot("no-completion")
		p.t.Fatalf("Tab after `display.` offered nothing: %v", err)
	}
	p.Shot("completion")
	have := strings.Join(items, " ")
	for _, want := range []string{"Markdown", "Table", "Chart"} {
		if !contains(items, want) {
			p.t.Errorf("the completer after `display.` lacks %s: %s", want, have)
		}
	}
	p.t.Logf("Tab after `display.` offered %d items in %.1fs (Tabs pressed: %d): %s", len(items), time.Since(t0).Seconds(), tabs, have)
	_ = chromedp.Do(p.ctx, chromedp.KeyEvent(kb.Escape))
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// complete types src into a new cell and presses Tab until the completer shows items; it returns
// them and how many Tabs it took.
func (p *Page) complete(src string, tries int) ([]string, int, error) {
	pt, err := Eval[*Point](p.ctx, "typeInNewCell", src)
	if err != nil || pt == nil {
		return nil, 0, fmt.Errorf("could not add a cell to type in: %v", err)
	}
	var last error
	for i := 0; i < tries; i++ {
		if err := chromedp.Do(p.ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			return nil, i + 1, err
		}
		items, err := Wait[[]string](p.ctx, 30*time.Second, "completions")
		if err == nil && len(items) > 0 {
			return p.settledCompletions(items), i + 1, nil
		}
		last = err
	}
	return nil, tries, fmt.Errorf("%d Tabs, no completer list: %v", tries, last)
}

// settledCompletions waits (at most 5 s) until the open completer's list stops growing: JupyterLab
// renders a long list in batches, so the first look may see only its start.
func (p *Page) settledCompletions(items []string) []string {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(500 * time.Millisecond)
		more, err := Eval[[]string](p.ctx, "completions")
		if err != nil || len(more) <= len(items) {
			return items
		}
		items = more
	}
	return items
}
