//go:build browser

package browser

import (
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// panelState is what lab.js reads from a panel's controls and view.
type panelState struct {
	Live    string `json:"live"`
	Preset  string `json:"preset"`
	Round   int    `json:"round"`
	State   string `json:"state"`
	Values  string `json:"values"`
	Chart   bool   `json:"chart"`
	Fold    bool   `json:"fold"`
	Caption string `json:"caption"`
}

// panelEdit types a new micro-batch into a live sizing panel (a click into the field, select all,
// the digits, Tab — as a learner does) and checks that the view is redrawn in place for it: a new
// round, the values and caption of the new micro-batch, the preset turned to "custom", a chart
// and the formula's fold.
func (p *Page) panelEdit(pi raceInfo) error {
	before, err := Wait[*panelState](p.ctx, time.Minute, "panelRound", pi.ID, 1)
	if err != nil {
		return fmt.Errorf("the panel in cell %d never drew its first view: %w", pi.Cell, err)
	}
	p.Shot("panel-before")
	if !before.Chart || !before.Fold {
		return fmt.Errorf("the panel's first view has no chart (%v) or no formula fold (%v): %+v", before.Chart, before.Fold, before)
	}
	if err := p.Click(10*time.Second, "panelInput", pi.ID, "batch"); err != nil {
		return err
	}
	if err := chromedp.Do(p.ctx,
		chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		chromedp.KeyEvent("32"),
		chromedp.KeyEvent(kb.Tab)); err != nil {
		return err
	}
	after, err := Wait[*panelState](p.ctx, time.Minute, "panelRound", pi.ID, before.Round+1)
	if err != nil {
		cur, _ := Eval[*panelState](p.ctx, "panel", pi.ID)
		p.Shot("panel-not-redrawn")
		return fmt.Errorf("typing micro-batch 32 did not redraw the panel within a minute: %v (state %+v)", err, cur)
	}
	time.Sleep(500 * time.Millisecond)
	p.Shot("panel-after")
	p.t.Logf("panel in cell %d: round %d %q → round %d %q", pi.Cell, before.Round, before.Caption, after.Round, after.Caption)
	switch {
	case !strings.Contains(after.Values, `"batch":"32"`):
		return fmt.Errorf("the redrawn view is for %s, not micro-batch 32", after.Values)
	case !strings.Contains(after.Caption, "b=32"):
		return fmt.Errorf("the caption does not say micro-batch 32: %q", after.Caption)
	case after.Preset != "custom":
		return fmt.Errorf("editing the micro-batch left the preset at %q, want custom", after.Preset)
	case !after.Chart || !after.Fold || after.State != "done":
		return fmt.Errorf("the redrawn view lacks its chart or fold, or is an error: %+v", after)
	case after.Caption == before.Caption:
		return fmt.Errorf("the caption did not change: %q", after.Caption)
	}
	return nil
}

// CheckPanel reports the panel check made during Run All (see RunAll).
func (p *Page) CheckPanel() {
	p.panel.report(p,
		`no live panel appeared during Run All (div.whygpu-panel-controls with data-panel-live="yes")`, "the panel was not checked")
}
