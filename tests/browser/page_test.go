//go:build browser

package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// Page is one notebook open in JupyterLab in its own browser tab.
type Page struct {
	t     *testing.T
	ctx   context.Context
	lab   *Lab
	Name  string // notebook name without .ipynb
	shots int

	// CheckRaceDuringRun: during Run All, check the first live race's batch-size slider.
	CheckRaceDuringRun bool
	race               liveCheck

	// CheckPanelDuringRun: during Run All, check the first live panel's (display.Panel) redraw.
	CheckPanelDuringRun bool
	panel               liveCheck
}

// liveCheck is what Run All saw of one kind of live widget (races, panels).
type liveCheck struct {
	seen    int   // live ones met during Run All
	checked bool  // the check ran (on the first)
	err     error // its verdict
}

// Point is a place on the screen to click, as lab.js returns it.
type Point struct {
	X, Y, W, H float64
}

// OpenNotebook opens notebooks/<name>.ipynb in a new tab and waits for its kernel to be idle.
func OpenNotebook(t *testing.T, lab *Lab, browser context.Context, name string) *Page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser) // a new tab
	t.Cleanup(cancel)
	p := &Page{t: t, ctx: ctx, lab: lab, Name: name}
	// Each notebook in its own JupyterLab workspace, so the tab shows that notebook alone.
	url := fmt.Sprintf("%s/lab/workspaces/test-%s/tree/%s.ipynb?token=%s", lab.URL, name, name, lab.Token)
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("opening %s: %v", name, err)
	}
	if _, err := Wait[any](ctx, 3*time.Minute, "notebookReady", name+".ipynb"); err != nil {
		p.Shot("not-ready")
		t.Fatalf("%s did not open with an idle kernel within 3 minutes: %v (see the screenshot and tests/artifacts/browser/jupyterlab.log)", name, err)
	}
	// Collapse the file browser (a click on its active side-bar tab) to give the notebook the width.
	if pt, err := Eval[*Point](ctx, "sidebarTab"); err == nil && pt != nil {
		_ = chromedp.Do(ctx, chromedp.MouseClickXY(pt.X, pt.Y))
		time.Sleep(300 * time.Millisecond)
	}
	return p
}

// Shot saves a screenshot named <notebook>-<n>-<what>.png.
func (p *Page) Shot(what string) string {
	p.shots++
	return Shot(p.t, p.ctx, fmt.Sprintf("%s-%d-%s", p.Name, p.shots, what))
}

// Click clicks (real mouse events) the point a lab.js helper returns, waiting for it to exist.
func (p *Page) Click(timeout time.Duration, fn string, args ...any) error {
	pt, err := Wait[*Point](p.ctx, timeout, fn, args...)
	if err != nil {
		return fmt.Errorf("%s%v not found: %w", fn, args, err)
	}
	return p.clickAt(pt)
}

// clickAt moves the mouse to a point and clicks there.
func (p *Page) clickAt(pt *Point) error {
	// Move first, as a hand does: Lumino menus pick the item under the pointer on mousemove.
	return chromedp.Do(p.ctx,
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pt.X-3, pt.Y),
		chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, pt.X, pt.Y),
		chromedp.MouseClickXY(pt.X, pt.Y))
}

// RunAll clicks Run → Run All Cells and waits until every code cell has run and the kernel is idle.
//
// A live race (raceview.Race) or panel (display.Panel) keeps its cell running while it listens to
// its controls, and the cells below wait for it. So while Run All runs, every race or panel that
// goes live is handled as a learner would: the first one gets its check when p.CheckRaceDuringRun
// (p.CheckPanelDuringRun) is set, then its Stop button is clicked so the run goes on.
func (p *Page) RunAll(timeout time.Duration) (time.Duration, error) {
	if err := p.Click(10*time.Second, "menu", "Run"); err != nil {
		return 0, err
	}
	if err := p.Click(10*time.Second, "menuItem", "notebook:run-all-cells", "Run All Cells"); err != nil {
		return 0, err
	}
	t0 := time.Now()
	if _, err := Wait[any](p.ctx, 30*time.Second, "runStarted"); err != nil {
		return 0, fmt.Errorf("Run All did not start: no cell queued or run within 30s: %w", err)
	}
	handled := map[string]bool{}
	for {
		done, err := Eval[any](p.ctx, "runDone")
		if err != nil {
			return time.Since(t0), err
		}
		if done != nil && done != false {
			return time.Since(t0), nil
		}
		if err := p.stopLive("race", "races", "raceStopButton", handled, &p.race, p.CheckRaceDuringRun, p.raceSlider); err != nil {
			return time.Since(t0), err
		}
		if err := p.stopLive("panel", "panels", "panelStopButton", handled, &p.panel, p.CheckPanelDuringRun, p.panelEdit); err != nil {
			return time.Since(t0), err
		}
		if time.Since(t0) > timeout {
			st, _ := Eval[any](p.ctx, "runState")
			return time.Since(t0), fmt.Errorf("Run All did not complete within %s (state %v)", timeout, st)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

type raceInfo struct {
	ID   string `json:"id"`
	Live string `json:"live"`
	Cell int    `json:"cell"`
}

// stopLive handles the live widgets of one kind (what: "race"; list: lab.js's function listing
// them) that Run All met since the last call: each is counted, the first is checked when check is
// set, and each is stopped with its Stop button so the cells below run.
func (p *Page) stopLive(what, list, stopButton string, handled map[string]bool, lc *liveCheck, check bool, checkFn func(raceInfo) error) error {
	live, err := Eval[[]raceInfo](p.ctx, list)
	if err != nil {
		return err
	}
	for _, w := range live {
		if w.Live != "yes" || handled[w.ID] {
			continue
		}
		handled[w.ID] = true
		lc.seen++
		if check && lc.err == nil && !lc.checked {
			lc.checked = true
			lc.err = checkFn(w)
		}
		if err := p.Click(10*time.Second, stopButton, w.ID); err != nil {
			p.t.Logf("%s in cell %d: no Stop button to click (%v); waiting for it to stop by itself", what, w.Cell, err)
		}
	}
	return nil
}

// kernelSpecDisplayName reads the course kernel's display name from the venv's kernel spec.
func kernelSpecDisplayName(t *testing.T, root string) string {
	b, err := os.ReadFile(filepath.Join(root, ".venv", "share", "jupyter", "kernels", "whygpu", "kernel.json"))
	if err != nil {
		t.Fatalf("the course kernel spec is missing: %v (run make setup)", err)
	}
	var k struct {
		DisplayName string `json:"display_name"`
	}
	_ = json.Unmarshal(b, &k)
	return k.DisplayName
}

// CheckNoNewsPrompt: the course's lab settings (kernels/jupyterlab/overrides.json, installed by
// scripts/setup.sh) turn JupyterLab's news feed and update check off, so no "get notified about
// official Jupyter news?" toast covers the first notebook (issue 35 §6).
func (p *Page) CheckNoNewsPrompt() {
	t := p.t
	// JupyterLab applies overrides.json to the plugin's schema defaults (the settings API has no
	// "composite" field in JupyterLab 4): read the defaults the page will use.
	var s struct {
		Schema struct {
			Properties map[string]struct {
				Default any `json:"default"`
			} `json:"properties"`
		} `json:"schema"`
	}
	if err := p.lab.API("/lab/api/settings/@jupyterlab/apputils-extension:notification", &s); err != nil {
		t.Fatal(err)
	}
	if news, check := s.Schema.Properties["fetchNews"].Default, s.Schema.Properties["checkForUpdates"].Default; news != "false" || check != false {
		t.Errorf("JupyterLab's notification defaults are fetchNews %v, checkForUpdates %v: want \"false\" and false from kernels/jupyterlab/overrides.json", news, check)
	}
	time.Sleep(2 * time.Second) // the prompt comes a moment after the page is ready
	toasts, err := Eval[[]string](p.ctx, "toasts")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range toasts {
		if strings.Contains(strings.ToLower(m), "news") {
			p.Shot("news-prompt")
			t.Errorf("a news toast covers %s: %q", p.Name, m)
		}
	}
}

// CheckOpensWithCourseKernel: the toolbar names the course kernel, the session runs kernel "whygpu".
func (p *Page) CheckOpensWithCourseKernel() {
	t := p.t
	want := kernelSpecDisplayName(t, p.lab.Root)
	ready, err := Eval[map[string]any](p.ctx, "notebookReady", p.Name+".ipynb")
	if err != nil {
		t.Fatal(err)
	}
	k, err := Eval[map[string]string](p.ctx, "kernel")
	if err != nil {
		t.Fatal(err)
	}
	p.Shot("opened")
	if k["name"] != "whygpu" {
		t.Errorf("%s opened with kernel %q, want the course kernel \"whygpu\"", p.Name, k["name"])
	}
	if got := fmt.Sprint(ready["displayName"]); got != want {
		t.Errorf("%s: the toolbar shows kernel %q, want %q", p.Name, got, want)
	}
	var sessions []struct {
		Path   string `json:"path"`
		Kernel struct {
			Name string `json:"name"`
		} `json:"kernel"`
	}
	if err := p.lab.API("/api/sessions", &sessions); err != nil {
		t.Error(err)
	}
	found := false
	for _, s := range sessions {
		if strings.HasSuffix(s.Path, p.Name+".ipynb") && s.Kernel.Name == "whygpu" {
			found = true
		}
	}
	if !found {
		t.Errorf("no Jupyter session runs %s.ipynb on kernel whygpu: %+v", p.Name, sessions)
	}
}

// CheckRunAllClean: Run All completes and no cell shows an error.
func (p *Page) CheckRunAllClean(timeout time.Duration) {
	t := p.t
	took, err := p.RunAll(timeout)
	if err != nil {
		p.Shot("run-all-incomplete")
		t.Fatal(err)
	}
	t.Logf("%s: Run All completed in %.1fs", p.Name, took.Seconds())
	errs := p.Errors()
	if len(errs) > 0 {
		if n, ok := errs[0]["cell"].(float64); ok {
			_, _ = Eval[bool](p.ctx, "showCell", int(n), "center")
		}
		p.Shot("run-all-errors")
		for _, e := range errs {
			t.Errorf("%s cell %v: %v: %v", p.Name, e["cell"], e["kind"], e["text"])
		}
		return
	}
	// The first code cell's output, as a learner sees it after Run All.
	if src, err := Eval[[]map[string]any](p.ctx, "sources"); err == nil {
		for _, c := range src {
			if c["type"] == "code" {
				_, _ = Eval[bool](p.ctx, "showCell", int(c["n"].(float64)), "start")
				break
			}
		}
	}
	p.Shot("run-all")
}

// Errors returns the error outputs the page shows (see lab.js errors).
func (p *Page) Errors() []map[string]any {
	errs, err := Eval[[]map[string]any](p.ctx, "errors")
	if err != nil {
		p.t.Fatal(err)
	}
	return errs
}

// CheckCharts: at least one chart (<img> or <svg>) of non-trivial size is rendered in the outputs,
// and every such chart's cell shows its origin badge (pkg/view/display's .whygpu-badge, visible).
func (p *Page) CheckCharts() {
	t := p.t
	charts, err := Eval[[]map[string]any](p.ctx, "charts")
	if err != nil {
		t.Fatal(err)
	}
	big := 0
	for _, c := range charts {
		w, _ := c["w"].(float64)
		h, _ := c["h"].(float64)
		if w >= 200 && h >= 100 && c["loaded"] == true {
			big++
			if b, _ := c["badge"].(string); b == "" {
				p.Shot("chart-without-badge")
				t.Errorf("%s: the chart in cell %v shows no origin badge", p.Name, c["cell"])
			}
		}
	}
	if big == 0 {
		p.Shot("no-chart")
		t.Fatalf("%s: no rendered chart of at least 200×100 px in the outputs (found %v)", p.Name, charts)
	}
	t.Logf("%s: %d chart(s) rendered: %v", p.Name, big, charts)
	p.CheckNothingOverflows()
	_, _ = Eval[bool](p.ctx, "showChart", 0)
	time.Sleep(300 * time.Millisecond)
	p.Shot("chart")
}

// CheckNothingOverflows fails when an output holding a chart or a table is wider than its area
// (scrollWidth > clientWidth) or a chart or table reaches past its right edge: at JupyterLab's
// default width (the browser's 1366 px window) a learner would see it cut.
func (p *Page) CheckNothingOverflows() {
	t := p.t
	outs, err := Eval[[]map[string]any](p.ctx, "overflows")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		sw, _ := o["scrollWidth"].(float64)
		cw, _ := o["clientWidth"].(float64)
		wide, _ := o["wide"].([]any)
		if sw > cw || len(wide) > 0 {
			_, _ = Eval[bool](p.ctx, "showCell", o["cell"], "center")
			p.Shot(fmt.Sprintf("overflow-cell-%v", o["cell"]))
			t.Errorf("%s: cell %v's output overflows: scrollWidth %v > clientWidth %v, too wide: %v", p.Name, o["cell"], sw, cw, wide)
		}
	}
	t.Logf("%s: %d outputs with charts or tables checked for overflow", p.Name, len(outs))
}
