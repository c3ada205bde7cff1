//go:build browser

package browser

import (
	"fmt"
	"strings"
	"time"
)

// raceState is what lab.js reads from a race's bars and controls.
type raceState struct {
	Live      string `json:"live"`
	Slider    int    `json:"slider"`
	SliderMax int    `json:"sliderMax"`
	Round     int    `json:"round"`
	State     string `json:"state"`
	Batch     int    `json:"batch"`
	Hidden    int    `json:"hidden"`
	Winner    string `json:"winner"`
	Lanes     []struct {
		Device  string  `json:"device"`
		Seconds float64 `json:"seconds"`
		Width   string  `json:"width"`
	} `json:"lanes"`
}

func (r raceState) bars() string {
	var parts []string
	for _, l := range r.Lanes {
		parts = append(parts, fmt.Sprintf("%s %.3gs (%s)", l.Device, l.Seconds, l.Width))
	}
	return strings.Join(parts, ", ")
}

// raceSlider moves the batch-size slider of a live race with the mouse (a click on the track, as a
// learner does) and checks that the race runs again at the new batch size and the bars change.
func (p *Page) raceSlider(r raceInfo) error {
	before, err := Wait[*raceState](p.ctx, 2*time.Minute, "raceDone", r.ID, 1)
	if err != nil {
		return fmt.Errorf("the race in cell %d never finished its first round: %w", r.Cell, err)
	}
	_, _ = Eval[bool](p.ctx, "showRace", r.ID)
	time.Sleep(2 * time.Second) // let the bars' grow animation finish for the screenshot
	p.Shot("race-before")
	target := before.SliderMax - 1 // near the top: a much larger batch
	if target == before.Slider || target < 0 {
		target = 1
	}
	pt, err := Eval[*Point](p.ctx, "raceSliderPoint", r.ID, target)
	if err != nil || pt == nil {
		return fmt.Errorf("the race's batch slider is missing or disabled: %v", err)
	}
	if err := p.clickAt(pt); err != nil {
		return err
	}
	moved, err := Eval[*raceState](p.ctx, "race", r.ID)
	if err != nil || moved == nil {
		return fmt.Errorf("reading the race after moving its slider: %v", err)
	}
	if moved.Slider == before.Slider {
		return fmt.Errorf("clicking the batch slider's track did not move it (still at stop %d)", moved.Slider)
	}
	after, err := Wait[*raceState](p.ctx, 3*time.Minute, "raceDone", r.ID, before.Round+1)
	if err != nil {
		cur, _ := Eval[*raceState](p.ctx, "race", r.ID)
		p.Shot("race-not-rerun")
		return fmt.Errorf("moving the batch slider (stop %d → %d) did not re-run the race within 3 minutes: %v (state %+v)", before.Slider, moved.Slider, err, cur)
	}
	_, _ = Eval[bool](p.ctx, "showRace", r.ID)
	time.Sleep(2 * time.Second)
	p.Shot("race-after")
	p.t.Logf("race in cell %d: round %d, batch %d: %s → round %d, batch %d: %s",
		r.Cell, before.Round, before.Batch, before.bars(), after.Round, after.Batch, after.bars())
	if after.Batch == before.Batch {
		return fmt.Errorf("the race re-ran at the same batch size %d", after.Batch)
	}
	if len(after.Lanes) == 0 {
		return fmt.Errorf("the re-run race shows no bars")
	}
	if after.bars() == before.bars() {
		return fmt.Errorf("the bars did not change: %s", after.bars())
	}
	return nil
}

// CheckRaceSlider reports the slider check made during Run All (see RunAll).
func (p *Page) CheckRaceSlider() {
	p.race.report(p,
		`no live race appeared during Run All (div.whygpu-race-controls with data-race-live="yes")`, "the race's slider was not checked")
}

// report reports the check of a live widget made during Run All: none went live (none says which
// controls were awaited), it went live but was not checked, or what its check found.
func (lc liveCheck) report(p *Page, none, unchecked string) {
	switch {
	case lc.seen == 0:
		p.t.Errorf("%s: %s", p.Name, none)
	case !lc.checked:
		p.t.Errorf("%s: %s", p.Name, unchecked)
	case lc.err != nil:
		p.t.Errorf("%s: %v", p.Name, lc.err)
	}
}

// recallState is what lab.js reads from the first recall check.
type recallState struct {
	Widgets       int    `json:"widgets"`
	Cell          int    `json:"cell"`
	Total         int    `json:"total"`
	Card          string `json:"card"`
	State         string `json:"state"`
	Open          bool   `json:"open"`
	AnswerVisible bool   `json:"answerVisible"`
	AnswerText    string `json:"answerText"`
	GradeVisible  bool   `json:"gradeVisible"`
	Counts        []struct {
		N    int    `json:"n"`
		Text string `json:"text"`
	} `json:"counts"`
}

// CheckRecall: the first recall check's answer is hidden until its reveal is clicked, shown after,
// and marking it "I had it" moves every "n of m recalled" counter of the lesson by one.
func (p *Page) CheckRecall() {
	t := p.t
	r, err := Eval[*recallState](p.ctx, "recall")
	if err != nil {
		t.Fatal(err)
	}
	if r == nil {
		t.Fatalf("%s: no recall check (div.whygpu-recall) in the outputs", p.Name)
	}
	_, _ = Eval[bool](p.ctx, "showRecall")
	p.Shot("recall-hidden")
	if r.AnswerVisible || r.Open {
		t.Errorf("%s cell %d: the answer of %s is visible before the reveal is clicked", p.Name, r.Cell, r.Card)
	}
	if len(r.Counts) == 0 {
		t.Fatalf("%s: no \"n of m recalled\" counter", p.Name)
	}
	n0 := r.Counts[0].N
	want0 := fmt.Sprintf("%d of %d recalled", n0, r.Total)
	for _, c := range r.Counts {
		if c.Text != want0 {
			t.Errorf("%s: counter reads %q, want %q", p.Name, c.Text, want0)
		}
	}

	if err := p.Click(10*time.Second, "recallSummary"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	r2, err := Eval[*recallState](p.ctx, "recall")
	if err != nil {
		t.Fatal(err)
	}
	p.Shot("recall-revealed")
	if !r2.AnswerVisible || !r2.Open {
		t.Fatalf("%s cell %d: clicking \"Reveal the answer\" did not show the answer of %s", p.Name, r.Cell, r.Card)
	}
	if !r2.GradeVisible {
		t.Errorf("%s: no \"Did you have it?\" buttons after the reveal (the recall script did not run?)", p.Name)
	}

	if err := p.Click(10*time.Second, "recallYes"); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d of %d recalled", n0+1, r.Total)
	deadline := time.Now().Add(5 * time.Second)
	var r3 *recallState
	for {
		r3, err = Eval[*recallState](p.ctx, "recall")
		if err != nil {
			t.Fatal(err)
		}
		ok := len(r3.Counts) > 0
		for _, c := range r3.Counts {
			ok = ok && c.Text == want
		}
		if ok || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	p.Shot("recall-counted")
	for _, c := range r3.Counts {
		if c.Text != want {
			t.Errorf("%s: after \"I had it\", a counter reads %q, want %q", p.Name, c.Text, want)
		}
	}
	if r3.State != "yes" {
		t.Errorf("%s: the card's state is %q after \"I had it\", want \"yes\"", p.Name, r3.State)
	}
	t.Logf("%s: recall check in cell %d (%d on the page): hidden → revealed %q → counter %q → %q",
		p.Name, r.Cell, r.Widgets, r2.AnswerText, want0, want)
}
