//go:build browser

package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCourseInJupyterLab opens the course's notebooks in JupyterLab in headless Chromium and checks
// what a learner sees. One JupyterLab and one browser serve every subtest.
func TestCourseInJupyterLab(t *testing.T) {
	old, _ := filepath.Glob(filepath.Join(artifacts(t), "*.png")) // no stale screenshots
	for _, f := range old {
		_ = os.Remove(f)
	}
	lab := StartLab(t)
	browser := Browser(t, 25*time.Minute)

	t.Run("00-setup-check", func(t *testing.T) {
		p := OpenNotebook(t, lab, browser, "00-setup-check")
		p.CheckNoNewsPrompt()
		p.CheckOpensWithCourseKernel()
		p.CheckRunAllClean(10 * time.Minute)
		p.CheckCharts()
	})

	t.Run("01-race", func(t *testing.T) {
		if _, err := os.Stat(filepath.Join(lab.Root, "notebooks", "01-race.ipynb")); err != nil {
			t.Fatal("notebooks/01-race.ipynb is missing: the recall and race checks run on lesson 1")
		}
		p := OpenNotebook(t, lab, browser, "01-race")
		p.CheckRaceDuringRun = true
		p.CheckOpensWithCourseKernel()
		p.CheckRunAllClean(10 * time.Minute)
		p.CheckCharts()
		p.CheckRaceSlider()
		p.CheckRecall()
	})

	// The error check is not vacuous: a cell that does not compile is seen as an error.
	t.Run("98-error", func(t *testing.T) {
		if err := copyFile(filepath.Join("testdata", "98-error.ipynb"), filepath.Join(lab.Dir, "98-error.ipynb")); err != nil {
			t.Fatal(err)
		}
		p := OpenNotebook(t, lab, browser, "98-error")
		if _, err := p.RunAll(3 * time.Minute); err != nil {
			t.Fatal(err)
		}
		errs := p.Errors()
		_, _ = Eval[bool](p.ctx, "showCell", 2, "center")
		p.Shot("compile-error-seen")
		if len(errs) == 0 {
			t.Fatal("a cell with a compile error ran and the test saw no error: the error check is blind")
		}
		text := fmt.Sprint(errs)
		if !strings.Contains(text, "undefinedThing") {
			t.Errorf("the errors seen do not name the undefined identifier: %v", errs)
		}
		t.Logf("errors seen: %v", errs)
	})

	// A prediction typed into a cell survives a page reload and is compared after the run; autocomplete
	// as a learner meets it: Tab after `display.`.
	t.Run("97-complete", func(t *testing.T) {
		if err := copyFile(filepath.Join("testdata", "97-complete.ipynb"), filepath.Join(lab.Dir, "97-complete.ipynb")); err != nil {
			t.Fatal(err)
		}
		p := OpenNotebook(t, lab, browser, "97-complete")
		p.CheckRunAllClean(3 * time.Minute)
		p.CheckPredictionKept(3, 4)
		p.CheckAutocomplete()
	})

	// The sizing widget (display.Panel over lessons/memory/sizing, lesson 06's) on a fixture notebook: it
	// renders, and typing a new micro-batch redraws it in place.
	t.Run("96-panel", func(t *testing.T) {
		if err := copyFile(filepath.Join("testdata", "96-panel.ipynb"), filepath.Join(lab.Dir, "96-panel.ipynb")); err != nil {
			t.Fatal(err)
		}
		p := OpenNotebook(t, lab, browser, "96-panel")
		p.CheckPanelDuringRun = true
		p.CheckRunAllClean(5 * time.Minute)
		p.CheckPanel()
	})

	// The widgets on a fixture notebook (tests/browser/testdata/99-widgets.ipynb: a recall deck and
	// a race with an instant fake raceview.Func), so the recall and slider checks run whatever state
	// lesson 1 is in.
	t.Run("99-widgets", func(t *testing.T) {
		if err := copyFile(filepath.Join("testdata", "99-widgets.ipynb"), filepath.Join(lab.Dir, "99-widgets.ipynb")); err != nil {
			t.Fatal(err)
		}
		p := OpenNotebook(t, lab, browser, "99-widgets")
		p.CheckRaceDuringRun = true
		p.CheckRunAllClean(5 * time.Minute)
		p.CheckRaceSlider()
		p.CheckRecall()
	})
}
