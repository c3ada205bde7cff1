// Package raceview is lesson 01's race widget: a batch-size slider and a hidden-width slider that
// re-run a training step on every device, drawn as bars that grow at the same speed. It talks to
// the page through pkg/view/display's widget API (the only package that knows GoNB); its HTML, CSS
// and script are the embedded files in racehtml/.
package raceview

import (
	"embed"
	"fmt"
	"html/template"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/support/panics"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/display"
)

// Lane is one device's time in a race (see charts.Lane): device, time, live or recorded.
type Lane = charts.Lane

// Func runs the race's work — e.g. one training step of an MLP with this batch size and
// hidden width — on every device and returns a lane per device. Lanes for devices not present
// here may come from recordings (Source charts.Recorded). A device that fails at this size (out
// of memory) gets a lane with Err set; an error return means the whole race could not run.
type Func func(batch, hidden int) ([]Lane, error)

// Options configures Race; zero fields take the defaults.
type Options struct {
	// Title names the work raced (default "one training step").
	Title string
	// Batches and Hiddens are the slider stops, ascending (default 1, 2, 4, …, 512 and
	// 16, 32, …, 2048).
	Batches, Hiddens []int
	// Batch and Hidden are the starting values, raced first (default 32 and 256; a value
	// between stops moves to the nearest stop).
	Batch, Hidden int
	// Handshake is how long Race waits for the browser to answer before deciding that no
	// front-end is connected (default 15 s: GoNB itself waits up to 3 s to connect a page, and in a CI run
	// at load 4–5 a page did not greet within 6 s; without widgets Race does not wait at all).
	Handshake time.Duration
	// Idle ends a live race after this long without a slider move (default 90 s).
	Idle time.Duration
	// Lifetime ends a live race after this long in any case (default 10 min).
	Lifetime time.Duration
}

func (o Options) withDefaults() Options {
	if o.Title == "" {
		o.Title = "one training step"
	}
	if len(o.Batches) == 0 {
		o.Batches = units.PowersOfTwo(1, 512)
	}
	if len(o.Hiddens) == 0 {
		o.Hiddens = units.PowersOfTwo(16, 2048)
	}
	if o.Batch == 0 {
		o.Batch = 32
	}
	if o.Hidden == 0 {
		o.Hidden = 256
	}
	o.Batch = o.Batches[nearest(o.Batches, o.Batch)]
	o.Hidden = o.Hiddens[nearest(o.Hiddens, o.Hidden)]
	if o.Handshake <= 0 {
		o.Handshake = 15 * time.Second
	}
	if o.Idle <= 0 {
		o.Idle = 90 * time.Second
	}
	if o.Lifetime <= 0 {
		o.Lifetime = 10 * time.Minute
	}
	return o
}

// nearest is the index of the stop closest to v (in ratio: the sliders are logarithmic).
func nearest(stops []int, v int) int {
	best := 0
	for i, s := range stops {
		if math.Abs(math.Log(float64(s)/float64(v))) < math.Abs(math.Log(float64(stops[best])/float64(v))) {
			best = i
		}
	}
	return best
}

// Why the sliders are hand-written instead of gonbui/widgets (v0.11.4): widgets.Slider builds its
// input from JavaScript once the page's comms answer, so a headless run (nbclient, nbconvert) or an
// exported notebook gets no slider and no fallback, while the race must notice that no browser is
// attached (the handshake below) and leave plain HTML behind; its sliders step through a list of
// stops (powers of two, as indices) rather than a linear integer range; and the browser test needs
// stable attributes (data-race-input, data-race-live) on the controls. The page side is a small
// script over GoNB's comms, which widgets uses too.
//
// Race shows lesson 1's race: a batch-size slider and a hidden-width slider driving run, with a
// bar per device that grows while the device works (CSS animation; every bar grows at the same
// speed, so the shortest one finished first) and the winner named once its bar stops.
//
// GoNB runs each cell as a program, and a program that listens to sliders must keep running, so
// Race decides how long to stay:
//
//   - It races the starting values at once and, meanwhile, shows the sliders with a small script
//     that greets the cell program through GoNB's comms (gonb_comm in the page). In JupyterLab
//     the greeting arrives within a second or so: the sliders are live, each move re-runs the
//     race (the latest position wins when moves come faster than races) and the bars are replaced
//     in place (display.Update). Race returns when "Stop the race" is clicked, when no slider
//     moved for Idle (90 s), after Lifetime (10 min), or when the cell is interrupted (the
//     interrupt is caught, so the cell ends cleanly).
//   - With no browser attached — headless execution with nbclient, `jupyter nbconvert
//     --execute` — no greeting comes. After Handshake (6 s, overlapping the first race) Race
//     shows the first race's result with the sliders replaced by a note, and returns. Setting
//     WHYGPU_WIDGETS=off (display.WidgetsEnv) skips the wait.
//   - Outside a notebook it runs the race once and prints it.
//
// When Race returns, the outputs left in the notebook — the last race's bars and a line saying
// which sizes they are for — are plain HTML and CSS with no script, so a saved or exported
// (nbconvert) notebook shows the last race, animated, without JavaScript. It returns the error of
// the first race (also shown in the output), nil when it ran.
//
// Stable hooks for a browser test: the controls are div.whygpu-race-controls with
// input[data-race-input="batch"] and input[data-race-input="hidden"] (range inputs over the
// stops' indices; a move is an "input" or "change" event), button[data-race-stop], and
// data-race-live="connecting" | "yes" | "no" on the controls; the bars are div.whygpu-race with
// data-race-batch, data-race-hidden, data-race-state ("racing", "done", "error"),
// data-race-round (1 for the first race, +1 for each) and data-race-winner, one
// div.whygpu-race-lane per device (data-race-lane, data-race-seconds) and .whygpu-race-winner.
func Race(run Func, opt Options) error {
	opt = opt.withDefaults()
	if !display.InNotebook() {
		lanes, err := safeRace(run, opt.Batch, opt.Hidden)
		if err != nil {
			fmt.Println("the race could not run:", err)
			return err
		}
		fmt.Printf("%s, batch %d × hidden %d\n%s", opt.Title, opt.Batch, opt.Hidden, lanesText(opt.Batch, lanes))
		return nil
	}
	r := &race{run: run, opt: opt, uid: display.NewID()}
	return r.serve(display.Widgets())
}

// safeRace runs the race, turning a panic into an error.
func safeRace(run Func, batch, hidden int) (lanes []Lane, err error) {
	defer panics.Catch(&err, "race at batch %d, hidden %d", batch, hidden)
	lanes, err = run(batch, hidden)
	if err == nil && len(lanes) == 0 {
		err = fmt.Errorf("race at batch %d, hidden %d: no lanes", batch, hidden)
	}
	return lanes, err
}

type sizes struct{ batch, hidden int }

type outcome struct {
	at    sizes
	lanes []Lane
	err   error
}

type race struct {
	run Func
	opt Options
	uid string
}

func (r *race) address() string    { return "/whygpu/race/" + r.uid }
func (r *race) controlsID() string { return "whygpu-race-controls-" + r.uid }
func (r *race) lanesID() string    { return "whygpu-race-lanes-" + r.uid }

// serve runs the race and, when live, listens to the sliders (see Race).
func (r *race) serve(widgets bool) error {
	first := sizes{r.opt.Batch, r.opt.Hidden}
	l := &raceLoop{r: r, done: make(chan outcome, 1), racing: true, inFlight: first, deaf: !widgets, lastSeq: -1, round: 1,
		batchOK: set(r.opt.Batches), hiddenOK: set(r.opt.Hiddens)}
	if widgets {
		// Listening first makes GoNB connect the page (if there is one) before it shows the controls.
		var stop func()
		l.msgs, stop = display.Listen(r.address())
		defer stop()
		display.Update(r.controlsID(), controlsHTML(r.controlsID(), r.address(), r.opt, first), r.controlsText(first, "connecting"))
	}
	r.show(raceView{title: r.opt.Title, batch: first.batch, hidden: first.hidden, state: "racing", round: l.round})
	l.start(first)

	l.handshake = time.NewTimer(r.opt.Handshake)
	l.idle = time.NewTimer(time.Hour)
	l.idle.Stop()
	lifetime := time.NewTimer(r.opt.Lifetime)
	interrupt := make(chan os.Signal, 1)
	defer l.handshake.Stop()
	defer l.idle.Stop()
	defer lifetime.Stop()
	if widgets {
		signal.Notify(interrupt, os.Interrupt)
		defer signal.Stop(interrupt)
	}

	for stop := false; !stop; {
		select {
		case o := <-l.done:
			stop = l.ended(o)
		case msg := <-l.msgs:
			stop = l.message(msg)
		case <-l.handshake.C:
			stop = l.noGreeting()
		case <-l.idle.C:
			l.reason, stop = fmt.Sprintf("no slider moved for %s", units.Long(r.opt.Idle.Seconds())), true
		case <-lifetime.C:
			l.reason, stop = fmt.Sprintf("it reached its %s limit", units.Long(r.opt.Lifetime.Seconds())), true
		case <-interrupt:
			l.reason, l.interrupted, stop = "the cell was interrupted", true, true
		}
	}
	l.leave(widgets)
	display.Flush()
	return l.firstErr
}

// raceLoop is the state of a race while it listens: which race runs, which one is shown, the
// latest slider position waiting for its turn, and whether a page is connected.
type raceLoop struct {
	r    *race
	done chan outcome // the running race's result

	racing            bool   // a race is running (inFlight)
	inFlight, shown   sizes  // the running race's sizes; the last finished one's
	pending           *sizes // the latest slider position, raced when the running race ends
	last              outcome
	shownLanes        []Lane // the last lanes that ran, shown dimmed while the next race runs
	round, finished   int    // races started and finished
	firstDone         bool
	firstErr          error // the first race's error: what Race returns
	connected, deaf   bool  // a page greeted us; no page will (no widgets, or no greeting in time)
	lastSeq           int   // the newest slider message seen (older ones arrive late and are dropped)
	reason            string
	interrupted       bool
	batchOK, hiddenOK map[int]bool
	msgs              <-chan string
	handshake, idle   *time.Timer
}

// start races at in the background; its outcome arrives on done.
func (l *raceLoop) start(at sizes) {
	go func() {
		lanes, err := safeRace(l.r.run, at.batch, at.hidden)
		l.done <- outcome{at, lanes, err}
	}()
}

// rerace shows the current bars dimmed and starts a race at new sizes.
func (l *raceLoop) rerace(at sizes) {
	l.racing, l.inFlight = true, at
	l.round++
	l.r.show(raceView{title: l.r.opt.Title, batch: at.batch, hidden: at.hidden, lanes: l.shownLanes, state: "racing", round: l.round})
	l.start(at)
}

// record notes a finished race and shows it.
func (l *raceLoop) record(o outcome) {
	l.racing = false
	if !l.firstDone {
		l.firstDone, l.firstErr = true, o.err
	}
	l.last, l.shown = o, o.at
	l.finished++
	if o.err == nil {
		l.shownLanes = o.lanes
	}
	l.r.show(l.r.view(o, l.round))
}

// ended handles a race's end: it shows it, starts the pending position if it differs, and
// reports whether the loop is over (nobody listens and nothing runs).
func (l *raceLoop) ended(o outcome) bool {
	l.record(o)
	if l.pending != nil && *l.pending != o.at {
		l.rerace(*l.pending)
	}
	l.pending = nil
	return l.deaf && !l.racing
}

// message handles one message from the page: "stop", or a slider position (the first one is the
// greeting, acknowledged so the page shows it is live). It reports whether the loop is over.
func (l *raceLoop) message(msg string) bool {
	if msg == "stop" {
		l.connected, l.reason = true, "the Stop button was clicked"
		return true
	}
	seq, at, ok := parseRaceMsg(msg, l.batchOK, l.hiddenOK)
	if !ok {
		return false
	}
	if !l.connected {
		l.connected = true
		l.handshake.Stop()
		display.Ack(l.r.address())
	}
	l.idle.Reset(l.r.opt.Idle)
	if seq <= l.lastSeq {
		return false
	}
	l.lastSeq = seq
	switch {
	case l.racing && at != l.inFlight:
		l.pending = &at
	case l.racing:
		l.pending = nil
	case at != l.shown:
		l.rerace(at)
	}
	return false
}

// noGreeting handles the end of the handshake wait: with no greeting, stop listening, and end the
// loop unless a race is still running.
func (l *raceLoop) noGreeting() bool {
	if l.connected {
		return false
	}
	l.deaf, l.msgs = true, nil
	return !l.racing
}

// leave waits for the running race (unless interrupted), shows why nothing finished if so, and
// replaces the sliders with a note saying what the bars below are.
func (l *raceLoop) leave(widgets bool) {
	if l.racing && !l.interrupted {
		l.record(<-l.done)
	}
	if l.finished == 0 {
		at := l.inFlight
		l.r.show(raceView{title: l.r.opt.Title, batch: at.batch, hidden: at.hidden, state: "error", round: l.round,
			err: fmt.Errorf("the race at batch %d, hidden %d did not finish (%s)", at.batch, at.hidden, l.reason)})
	}
	if !widgets {
		return
	}
	var note string
	switch {
	case l.finished == 0:
		note = fmt.Sprintf("The sliders stopped because %s before a race finished: re-run the cell to race again.", l.reason)
	case l.connected:
		note = fmt.Sprintf("The race below is the last of %d (batch %d × hidden %d). The sliders stopped because %s: re-run the cell to race again.",
			l.finished, l.last.at.batch, l.last.at.hidden, l.reason)
	default:
		note = fmt.Sprintf("Raced at batch %d × hidden %d. The sliders work when this notebook runs in JupyterLab: run the cell there to race other sizes.",
			l.shown.batch, l.shown.hidden)
	}
	display.Update(l.r.controlsID(), staticControlsHTML(note), note)
}

func set(vs []int) map[int]bool {
	m := map[int]bool{}
	for _, v := range vs {
		m[v] = true
	}
	return m
}

// parseRaceMsg reads a slider message "seq:batch,hidden"; sizes must be slider stops.
func parseRaceMsg(msg string, batches, hiddens map[int]bool) (seq int, at sizes, ok bool) {
	head, tail, found := strings.Cut(msg, ":")
	if !found {
		return 0, sizes{}, false
	}
	b, h, found := strings.Cut(tail, ",")
	if !found {
		return 0, sizes{}, false
	}
	var err1, err2, err3 error
	seq, err1 = strconv.Atoi(head)
	at.batch, err2 = strconv.Atoi(b)
	at.hidden, err3 = strconv.Atoi(h)
	if err1 != nil || err2 != nil || err3 != nil || !batches[at.batch] || !hiddens[at.hidden] {
		return 0, sizes{}, false
	}
	return seq, at, true
}

func (r *race) view(o outcome, round int) raceView {
	v := raceView{title: r.opt.Title, batch: o.at.batch, hidden: o.at.hidden, lanes: o.lanes, state: "done", round: round}
	if o.err != nil {
		v.state, v.err = "error", o.err
	}
	return v
}

func (r *race) show(v raceView) {
	plain := fmt.Sprintf("%s, batch %d × hidden %d: ", v.title, v.batch, v.hidden)
	switch v.state {
	case "racing":
		plain += "racing…"
	case "error":
		plain += "could not run: " + v.err.Error()
	default:
		plain += "\n" + lanesText(v.batch, v.lanes)
	}
	display.Update(r.lanesID(), raceHTML(v), plain)
}

func (r *race) controlsText(at sizes, state string) string {
	return fmt.Sprintf("race sliders (%s): batch %d, hidden %d", state, at.batch, at.hidden)
}

// lanesText is the race as text: a line per lane, then the verdict.
func lanesText(batch int, lanes []Lane) string {
	var b strings.Builder
	for _, l := range lanes {
		if l.Err != nil {
			fmt.Fprintf(&b, "  %-28s failed: %v\n", l.Device, l.Err)
			continue
		}
		fmt.Fprintf(&b, "  %-28s %10s per step%s  (%s)\n", l.Device, l.TimeText(), samplesPerSec(batch, l), l.Describe())
	}
	fmt.Fprintf(&b, "  %s\n", charts.RaceSummary(lanes))
	return b.String()
}

func samplesPerSec(batch int, l Lane) string {
	if batch <= 0 || l.Time <= 0 {
		return ""
	}
	if l.Banded() {
		return ", " + units.Plain(math.Round(float64(batch)/l.High.Seconds())) + "–" +
			units.Plain(math.Round(float64(batch)/l.Low.Seconds())) + " samples/s"
	}
	return ", " + units.Plain(math.Round(float64(batch)/l.Time.Seconds())) + " samples/s"
}

// raceView is what the bars show.
type raceView struct {
	title         string
	batch, hidden int
	lanes         []Lane
	state         string // "racing", "done", "error"
	round         int
	err           error
}

// raceDuration is how long the slowest bar takes to grow.
const raceDuration = 1.6

// raceFiles are the race's HTML templates, style sheets and page script.
//
//go:embed racehtml
var raceFiles embed.FS

// raceTemplates renders them (html/template: every value is escaped for where it lands).
var raceTemplates = template.Must(template.ParseFS(raceFiles, "racehtml/*"))

// barsData is what the bars template shows of a raceView.
type barsData struct {
	State                   string
	Batch, Hidden, Round    int
	Winner, Title, Sizes    string
	Racing                  bool
	Err                     string
	Lanes                   []laneData
	WinnerText, WinnerDelay string
	Summary                 string        // the verdict when no lane won
	Badges                  template.HTML // the lanes' origin badges (display.BadgesHTML escapes)
}

// laneData is one bar: Band for a model's band, Bar for a time, neither for a failed lane.
type laneData struct {
	Device, Seconds, Source, Class, Color string
	Band, Bar                             bool
	Left, Width, Duration                 string // percentages and seconds, formatted
	Failed                                bool
	Err, Time, Rate                       string
}

func pct(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// raceHTML draws the race: a bar per lane, width proportional to its time and growing at the same
// speed for all (CSS keyframes), so the fastest device's bar stops first; the winner appears when
// its bar stops. No script: it reads the same in a saved or exported notebook.
func raceHTML(v raceView) string {
	d := barsData{State: v.state, Batch: v.batch, Hidden: v.hidden, Round: v.round, Title: v.title, Racing: v.state == "racing"}
	w, won := charts.Winner(v.lanes)
	if won && v.state == "done" {
		d.Winner = v.lanes[w].Device
	}
	if v.hidden > 0 {
		d.Sizes = fmt.Sprintf(" · batch %d × hidden %d", v.batch, v.hidden)
	} else if v.batch > 0 {
		d.Sizes = fmt.Sprintf(" · batch %d", v.batch)
	}
	if v.state == "error" {
		d.Err = v.err.Error()
		return render("bars", d)
	}
	longest := 0.0
	for _, l := range v.lanes {
		if l.Err == nil && l.Time > 0 {
			longest = math.Max(longest, math.Max(l.Time.Seconds(), l.High.Seconds()))
		}
	}
	var origins []units.Origin
	for _, l := range v.lanes {
		if l.Err == nil {
			origins = append(origins, l.Source.Origin(l.Note))
		}
	}
	if len(origins) > 0 {
		d.Badges = template.HTML(display.BadgesHTML(origins))
	}
	for i, l := range v.lanes {
		ld := laneData{Device: l.Device, Source: l.Brief(), Color: charts.Hex(charts.ColorOf(i)), Class: "whygpu-race-bar"}
		if v.state == "racing" {
			ld.Class += " whygpu-race-stale"
		}
		switch l.Source {
		case charts.Recorded:
			ld.Class += " whygpu-race-recorded"
		case charts.Model:
			ld.Class += " whygpu-race-model"
		}
		secs := 0.0
		if l.Err == nil {
			secs = l.Time.Seconds()
		}
		ld.Seconds = strconv.FormatFloat(secs, 'g', -1, 64)
		if l.Err == nil && l.Banded() && longest > 0 {
			lo, hi := l.Low.Seconds()/longest, l.High.Seconds()/longest
			ld.Band, ld.Left, ld.Width, ld.Duration = true, pct(100*lo), pct(math.Max(0.6, 100*(hi-lo))), pct(math.Max(0.05, raceDuration*hi))
		} else if l.Err == nil && l.Time > 0 && longest > 0 {
			frac := secs / longest
			ld.Bar, ld.Width, ld.Duration = true, pct(math.Max(0.6, 100*frac)), pct(math.Max(0.05, raceDuration*frac))
		}
		if l.Err != nil {
			ld.Failed, ld.Err = true, l.Err.Error()
		} else {
			ld.Time, ld.Rate = l.TimeText(), strings.TrimPrefix(samplesPerSec(v.batch, l), ", ")
		}
		d.Lanes = append(d.Lanes, ld)
	}
	if won && v.state == "done" {
		text := "Winner: " + v.lanes[w].Device
		if f, r, ok := charts.Speedup(v.lanes); ok {
			text += fmt.Sprintf(" — %s× faster than %s", strconv.FormatFloat(units.Round3(f), 'f', -1, 64), v.lanes[r].Device)
		}
		switch l := v.lanes[w]; {
		case l.Source == charts.Recorded:
			text += " (" + l.Describe() + ")"
		case l.Source != charts.Live:
			// A model's note is long (its assumptions): the badge's fold holds it.
			text += " (" + l.Source.String() + ": the band's middle; its assumptions are behind the badge)"
		}
		d.WinnerText = text
		d.WinnerDelay = pct(math.Max(0.05, raceDuration*v.lanes[w].Time.Seconds()/longest))
	} else if v.state == "done" {
		d.Summary = charts.RaceSummary(v.lanes)
	}
	return render("bars", d)
}

// render executes one of the race's templates; they are fixed and their data is plain, so an
// error is a bug in this package, shown as the output rather than lost.
func render(name string, data any) string {
	var b strings.Builder
	if err := raceTemplates.ExecuteTemplate(&b, name, data); err != nil {
		return `<div class="whygpu-error">race widget: ` + template.HTMLEscapeString(err.Error()) + `</div>`
	}
	return b.String()
}

// controlsData is what the controls template shows.
type controlsData struct {
	ID, Address      string
	Batches, Hiddens []int
	IdleSecs         int
	Sliders          []sliderData
}

// sliderData is one slider over a list of stops (its value is an index into them).
type sliderData struct {
	Name, Label       string
	Max, Index, Value int
}

// controlsHTML draws the sliders and the stop button, with the script that connects them to the
// cell program through gonb_comm: it greets the program with the sliders' positions (repeating
// until acknowledged), then sends "seq:batch,hidden" on every move and "stop" on the button.
func controlsHTML(domID, address string, opt Options, at sizes) string {
	return render("controls", controlsData{ID: domID, Address: address, Batches: opt.Batches, Hiddens: opt.Hiddens,
		IdleSecs: int(opt.Idle.Seconds()), Sliders: []sliderData{
			{"batch", "batch size", len(opt.Batches) - 1, slices.Index(opt.Batches, at.batch), at.batch},
			{"hidden", "hidden width", len(opt.Hiddens) - 1, slices.Index(opt.Hiddens, at.hidden), at.hidden},
		}})
}

// staticControlsHTML replaces the sliders when the race stops listening.
func staticControlsHTML(note string) string { return render("static", note) }
