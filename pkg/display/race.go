package display

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"

	"github.com/gpu-course/whygpu/pkg/charts"
	"github.com/gpu-course/whygpu/pkg/units"
)

// Lane is one device's time in a race (see charts.Lane): device, time, live or recorded.
type Lane = charts.Lane

// RaceFunc runs the race's work — e.g. one training step of an MLP with this batch size and
// hidden width — on every device and returns a lane per device. Lanes for devices not present
// here may come from recordings (Source charts.Recorded). A device that fails at this size (out
// of memory) gets a lane with Err set; an error return means the whole race could not run.
type RaceFunc func(batch, hidden int) ([]Lane, error)

// RaceOptions configures Race; zero fields take the defaults.
type RaceOptions struct {
	// Title names the work raced (default "one training step").
	Title string
	// Batches and Hiddens are the slider stops, ascending (default 1, 2, 4, …, 512 and
	// 16, 32, …, 2048).
	Batches, Hiddens []int
	// Batch and Hidden are the starting values, raced first (default 32 and 256; a value
	// between stops moves to the nearest stop).
	Batch, Hidden int
	// Handshake is how long Race waits for the browser to answer before deciding that no
	// front-end is connected (default 6 s: GoNB itself waits up to 3 s to connect a page).
	Handshake time.Duration
	// Idle ends a live race after this long without a slider move (default 90 s).
	Idle time.Duration
	// Lifetime ends a live race after this long in any case (default 10 min).
	Lifetime time.Duration
}

// WidgetsEnv is the environment variable that turns the race's sliders off: with
// WHYGPU_WIDGETS=off, Race runs once with the starting values without waiting for a browser
// (headless test runs set it to skip the handshake wait).
const WidgetsEnv = "WHYGPU_WIDGETS"

func (o RaceOptions) withDefaults() RaceOptions {
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
		o.Handshake = 6 * time.Second
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
//     in place (gonbui.UpdateHTML). Race returns when "Stop the race" is clicked, when no slider
//     moved for Idle (90 s), after Lifetime (10 min), or when the cell is interrupted (the
//     interrupt is caught, so the cell ends cleanly).
//   - With no browser attached — headless execution with nbclient, `jupyter nbconvert
//     --execute` — no greeting comes. After Handshake (6 s, overlapping the first race) Race
//     shows the first race's result with the sliders replaced by a note, and returns. Setting
//     WHYGPU_WIDGETS=off skips the wait.
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
func Race(run RaceFunc, opt RaceOptions) error {
	opt = opt.withDefaults()
	if !InNotebook() {
		lanes, err := safeRace(run, opt.Batch, opt.Hidden)
		if err != nil {
			fmt.Println("the race could not run:", err)
			return err
		}
		fmt.Printf("%s, batch %d × hidden %d\n%s", opt.Title, opt.Batch, opt.Hidden, lanesText(opt.Batch, lanes))
		return nil
	}
	r := &race{run: run, opt: opt, uid: gonbui.UniqueId()}
	return r.serve(os.Getenv(WidgetsEnv) != "off" && gonbui.Error() == nil)
}

// Lanes shows race results once, as the race widget draws them (no sliders): for a race already
// run, e.g. the last row of a static sweep. batch is used for the samples/s column (0: none).
func Lanes(title string, batch int, lanes []Lane) {
	if !InNotebook() {
		fmt.Printf("%s\n%s", title, lanesText(batch, lanes))
		return
	}
	send("", raceHTML(raceView{title: title, batch: batch, lanes: lanes, state: "done", round: 1}), title+"\n"+lanesText(batch, lanes))
}

// safeRace runs the race, turning a panic into an error.
func safeRace(run RaceFunc, batch, hidden int) (lanes []Lane, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("race at batch %d, hidden %d: %v", batch, hidden, p)
		}
	}()
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
	run RaceFunc
	opt RaceOptions
	uid string
}

func (r *race) address() string    { return "/whygpu/race/" + r.uid }
func (r *race) controlsID() string { return "whygpu-race-controls-" + r.uid }
func (r *race) lanesID() string    { return "whygpu-race-lanes-" + r.uid }

// serve runs the race and, when live, listens to the sliders (see Race).
func (r *race) serve(widgets bool) error {
	first := sizes{r.opt.Batch, r.opt.Hidden}
	var msgs <-chan string
	if widgets {
		// Subscribing makes GoNB connect the page (if there is one) before it shows the controls.
		// The subscription is never cancelled: gonbui/comms (v0.11.4) keeps a lock held when a
		// value arrives for an address nobody listens to any more, which would wedge the cell's
		// later comms; GoNB drops the subscription itself when the cell ends.
		ch := make(chan string, 64)
		stopped := make(chan struct{})
		defer close(stopped)
		comms.Subscribe(r.address(), func(_ string, v string) {
			select {
			case ch <- v:
			case <-stopped:
			}
		})
		msgs = ch
		send(r.controlsID(), controlsHTML(r.controlsID(), r.address(), r.opt, first), r.controlsText(first, "connecting"))
	}
	round := 1
	r.show(raceView{title: r.opt.Title, batch: first.batch, hidden: first.hidden, state: "racing", round: round})
	done := make(chan outcome, 1)
	start := func(at sizes) {
		go func() {
			lanes, err := safeRace(r.run, at.batch, at.hidden)
			done <- outcome{at, lanes, err}
		}()
	}
	start(first)

	var (
		firstErr          error
		firstDone, racing = false, true
		inFlight, shown   = first, sizes{}
		pending           *sizes
		last              outcome
		connected, deaf   = false, !widgets
		lastSeq           = -1
		reason            string
		interrupted       bool
		handshake         = time.NewTimer(r.opt.Handshake)
		idle              = time.NewTimer(time.Hour)
		lifetime          = time.NewTimer(r.opt.Lifetime)
		interrupt         = make(chan os.Signal, 1)
		batchOK, hiddenOK = set(r.opt.Batches), set(r.opt.Hiddens)
		shownLanes        []Lane
		finished          int
	)
	idle.Stop()
	defer handshake.Stop()
	defer idle.Stop()
	defer lifetime.Stop()
	if widgets {
		signal.Notify(interrupt, os.Interrupt)
		defer signal.Stop(interrupt)
	}

loop:
	for {
		select {
		case o := <-done:
			racing = false
			if !firstDone {
				firstDone, firstErr = true, o.err
			}
			last, shown = o, o.at
			finished++
			if o.err == nil {
				shownLanes = o.lanes
			}
			r.show(r.view(o, round))
			if pending != nil && *pending != o.at {
				at := *pending
				pending, racing, inFlight = nil, true, at
				round++
				r.show(raceView{title: r.opt.Title, batch: at.batch, hidden: at.hidden, lanes: shownLanes, state: "racing", round: round})
				start(at)
			}
			pending = nil
			if deaf && !racing {
				break loop
			}
		case msg := <-msgs:
			if msg == "stop" {
				connected, reason = true, "the Stop button was clicked"
				break loop
			}
			seq, at, ok := parseRaceMsg(msg, batchOK, hiddenOK)
			if !ok {
				continue
			}
			if !connected {
				connected = true
				handshake.Stop()
				comms.Send(r.address()+"/ack", 1)
			}
			idle.Reset(r.opt.Idle)
			if seq <= lastSeq {
				continue
			}
			lastSeq = seq
			switch {
			case racing && at != inFlight:
				pending = &at
			case racing:
				pending = nil
			case at != shown:
				racing, inFlight = true, at
				round++
				r.show(raceView{title: r.opt.Title, batch: at.batch, hidden: at.hidden, lanes: shownLanes, state: "racing", round: round})
				start(at)
			}
		case <-handshake.C:
			if !connected {
				deaf = true
				msgs = nil
				if !racing {
					break loop
				}
			}
		case <-idle.C:
			reason = fmt.Sprintf("no slider moved for %s", human(r.opt.Idle))
			break loop
		case <-lifetime.C:
			reason = fmt.Sprintf("it reached its %s limit", human(r.opt.Lifetime))
			break loop
		case <-interrupt:
			reason, interrupted = "the cell was interrupted", true
			break loop
		}
	}

	if racing && !interrupted {
		o := <-done
		if !firstDone {
			firstErr = o.err
		}
		last, shown = o, o.at
		finished++
		r.show(r.view(o, round))
	}
	if finished == 0 {
		r.show(raceView{title: r.opt.Title, batch: inFlight.batch, hidden: inFlight.hidden, state: "error", round: round,
			err: fmt.Errorf("the race at batch %d, hidden %d did not finish (%s)", inFlight.batch, inFlight.hidden, reason)})
	}
	if widgets {
		var note string
		switch {
		case finished == 0:
			note = fmt.Sprintf("The sliders stopped because %s before a race finished: re-run the cell to race again.", reason)
		case connected:
			note = fmt.Sprintf("The race below is the last of %d (batch %d × hidden %d). The sliders stopped because %s: re-run the cell to race again.",
				finished, last.at.batch, last.at.hidden, reason)
		default:
			note = fmt.Sprintf("Raced at batch %d × hidden %d. The sliders work when this notebook runs in JupyterLab: run the cell there to race other sizes.",
				shown.batch, shown.hidden)
		}
		send(r.controlsID(), staticControlsHTML(note), note)
	}
	gonbui.Sync()
	return firstErr
}

// human writes a duration as "90 s" or "10 min".
func human(d time.Duration) string {
	if d >= time.Minute && d%time.Minute == 0 {
		return fmt.Sprintf("%d min", int(d.Minutes()))
	}
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
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
	send(r.lanesID(), raceHTML(v), plain)
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

// raceHTML draws the race: a bar per lane, width proportional to its time and growing at the same
// speed for all (CSS keyframes), so the fastest device's bar stops first; the winner appears when
// its bar stops. No script: it reads the same in a saved or exported notebook.
func raceHTML(v raceView) string {
	var b strings.Builder
	winner := ""
	w, won := charts.Winner(v.lanes)
	if won && v.state == "done" {
		winner = v.lanes[w].Device
	}
	b.WriteString(raceStyle)
	fmt.Fprintf(&b, `<div class="whygpu-race" data-race-state="%s" data-race-batch="%d" data-race-hidden="%d" data-race-round="%d" data-race-winner="%s">`,
		v.state, v.batch, v.hidden, v.round, attr(winner))
	sizes := ""
	if v.hidden > 0 {
		sizes = fmt.Sprintf(" · batch %d × hidden %d", v.batch, v.hidden)
	} else if v.batch > 0 {
		sizes = fmt.Sprintf(" · batch %d", v.batch)
	}
	status := ""
	if v.state == "racing" {
		status = ` <span class="whygpu-race-status">racing…</span>`
	}
	fmt.Fprintf(&b, `<div class="whygpu-race-head"><b>%s</b>%s%s</div>`, html.EscapeString(v.title), html.EscapeString(sizes), status)
	if v.state == "error" {
		fmt.Fprintf(&b, `<div class="whygpu-error" style="border-left:4px solid #d55e00;padding:4px 8px"><b>Could not run this race:</b> %s</div></div>`,
			html.EscapeString(v.err.Error()))
		return b.String()
	}
	longest := 0.0
	for _, l := range v.lanes {
		if l.Err == nil && l.Time > 0 {
			longest = math.Max(longest, math.Max(l.Time.Seconds(), l.High.Seconds()))
		}
	}
	for i, l := range v.lanes {
		color := charts.Hex(charts.ColorOf(i))
		cls := "whygpu-race-bar"
		if v.state == "racing" {
			cls += " whygpu-race-stale"
		}
		switch l.Source {
		case charts.Recorded:
			cls += " whygpu-race-recorded"
		case charts.Model:
			cls += " whygpu-race-model"
		}
		secs := 0.0
		if l.Err == nil {
			secs = l.Time.Seconds()
		}
		fmt.Fprintf(&b, `<div class="whygpu-race-lane" data-race-lane="%s" data-race-seconds="%g" data-race-source="%s">`,
			attr(l.Device), secs, attr(l.Describe()))
		fmt.Fprintf(&b, `<div class="whygpu-race-name">%s<small>%s</small></div>`, html.EscapeString(l.Device), html.EscapeString(l.Describe()))
		b.WriteString(`<div class="whygpu-race-track">`)
		if l.Err == nil && l.Banded() && longest > 0 {
			lo, hi := l.Low.Seconds()/longest, l.High.Seconds()/longest
			fmt.Fprintf(&b, `<div class="%s whygpu-race-band" title="model band, not a measurement" style="margin-left:%.2f%%;width:%.2f%%;--c:%s;opacity:0.45;animation-duration:%.2fs"></div>`,
				cls, 100*lo, math.Max(0.6, 100*(hi-lo)), color, math.Max(0.05, raceDuration*hi))
		} else if l.Err == nil && l.Time > 0 && longest > 0 {
			frac := secs / longest
			fmt.Fprintf(&b, `<div class="%s" style="width:%.2f%%;--c:%s;animation-duration:%.2fs"></div>`,
				cls, math.Max(0.6, 100*frac), color, math.Max(0.05, raceDuration*frac))
		}
		b.WriteString(`</div>`)
		if l.Err != nil {
			fmt.Fprintf(&b, `<div class="whygpu-race-time">failed<small>%s</small></div>`, html.EscapeString(l.Err.Error()))
		} else {
			fmt.Fprintf(&b, `<div class="whygpu-race-time">%s<small>%s</small></div>`,
				html.EscapeString(l.TimeText()), html.EscapeString(strings.TrimPrefix(samplesPerSec(v.batch, l), ", ")))
		}
		b.WriteString(`</div>`)
	}
	if won && v.state == "done" {
		text := "Winner: " + v.lanes[w].Device
		if f, r, ok := charts.Speedup(v.lanes); ok {
			text += fmt.Sprintf(" — %s× faster than %s", strconv.FormatFloat(units.Round3(f), 'f', -1, 64), v.lanes[r].Device)
		}
		if v.lanes[w].Source != charts.Live {
			text += " (" + v.lanes[w].Describe() + ")"
		}
		delay := raceDuration * v.lanes[w].Time.Seconds() / longest
		fmt.Fprintf(&b, `<div class="whygpu-race-winner" style="animation-delay:%.2fs">%s</div>`, math.Max(0.05, delay), html.EscapeString(text))
	} else if v.state == "done" {
		fmt.Fprintf(&b, `<div class="whygpu-race-winner">%s</div>`, html.EscapeString(charts.RaceSummary(v.lanes)))
	}
	b.WriteString(`<div class="whygpu-race-note">Each bar grows at the same speed while its device works and stops when the step is done: the shortest bar finished first.</div>`)
	b.WriteString(`</div>`)
	return b.String()
}

func attr(s string) string { return html.EscapeString(s) }

const raceStyle = `<style>
.whygpu-race{font-family:var(--jp-content-font-family,sans-serif);color:var(--jp-content-font-color1,#222);max-width:56em;margin:4px 0}
.whygpu-race-head{margin:2px 0 6px}
.whygpu-race-status{color:#d55e00;font-style:italic}
.whygpu-race-lane{display:grid;grid-template-columns:12em 1fr 8em;align-items:center;gap:8px;margin:4px 0}
.whygpu-race-name small,.whygpu-race-time small{display:block;font-size:80%;color:var(--jp-content-font-color2,#666)}
.whygpu-race-time{font-variant-numeric:tabular-nums;font-weight:600}
.whygpu-race-track{background:var(--jp-layout-color2,#eee);border-radius:3px;height:18px;overflow:hidden}
.whygpu-race-bar{height:100%;background:var(--c);border-radius:3px;animation-name:whygpu-race-grow;animation-timing-function:linear;animation-fill-mode:both}
.whygpu-race-recorded{background:repeating-linear-gradient(135deg,var(--c) 0 6px,transparent 6px 9px);border:1px dashed var(--c);box-sizing:border-box}
.whygpu-race-model{background:transparent;border:2px dotted var(--c);box-sizing:border-box}
.whygpu-race-stale{opacity:.35;animation:none}
.whygpu-race-winner{margin-top:6px;font-weight:700;animation:whygpu-race-show .3s ease both}
.whygpu-race-note{margin-top:4px;font-size:80%;color:var(--jp-content-font-color2,#666)}
@keyframes whygpu-race-grow{from{width:0}}
@keyframes whygpu-race-show{from{opacity:0}to{opacity:1}}
</style>`

// controlsHTML draws the sliders and the stop button, with the script that connects them to the
// cell program through gonb_comm: it greets the program with the sliders' positions (repeating
// until acknowledged), then sends "seq:batch,hidden" on every move and "stop" on the button.
func controlsHTML(domID, address string, opt RaceOptions, at sizes) string {
	bs, _ := json.Marshal(opt.Batches)
	hs, _ := json.Marshal(opt.Hiddens)
	var b strings.Builder
	b.WriteString(controlsStyle)
	fmt.Fprintf(&b, `<div class="whygpu-race-controls" id="%s" data-race-live="connecting" data-race-address="%s">`, attr(domID), attr(address))
	slider := func(name, label string, stops []int, v int) {
		fmt.Fprintf(&b, `<label>%s <input type="range" min="0" max="%d" step="1" value="%d" data-race-input="%s"> <output data-race-value="%s">%d</output></label>`,
			label, len(stops)-1, slices.Index(stops, v), name, name, v)
	}
	slider("batch", "batch size", opt.Batches, at.batch)
	slider("hidden", "hidden width", opt.Hiddens, at.hidden)
	b.WriteString(`<button type="button" data-race-stop>Stop the race</button>`)
	b.WriteString(`<span class="whygpu-race-link" data-race-link>connecting to the notebook kernel…</span></div>`)
	fmt.Fprintf(&b, `<script>
(function () {
  var root = document.getElementById(%q);
  if (!root || root.getAttribute("data-race-ready")) { return; }
  root.setAttribute("data-race-ready", "1");
  var addr = %q, B = %s, H = %s, idleSecs = %d;
  var bi = root.querySelector('[data-race-input="batch"]'), hi = root.querySelector('[data-race-input="hidden"]');
  var link = root.querySelector("[data-race-link]"), seq = 0, acked = false, comm = null, timer = null, tries = 0;
  function now() {
    var t = Date.now();
    seq = t > seq ? t : seq + 1; // increasing even across re-renders of this output
    return seq + ":" + B[+bi.value] + "," + H[+hi.value];
  }
  function labels() {
    root.querySelector('[data-race-value="batch"]').textContent = B[+bi.value];
    root.querySelector('[data-race-value="hidden"]').textContent = H[+hi.value];
  }
  function send(v) {
    var c = globalThis.gonb_comm;
    if (!c) { return false; }
    if (c !== comm) {
      comm = c;
      c.subscribe(addr + "/ack", function () {
        if (acked) { return; }
        acked = true;
        root.setAttribute("data-race-live", "yes");
        link.textContent = "live: move a slider to race again (stops after " + idleSecs + " s without a move)";
      });
    }
    c.send(addr, v);
    return true;
  }
  function moved() { labels(); clearTimeout(timer); timer = setTimeout(function () { send(now()); }, 120); }
  bi.addEventListener("input", moved); hi.addEventListener("input", moved);
  bi.addEventListener("change", moved); hi.addEventListener("change", moved);
  root.querySelector("[data-race-stop]").addEventListener("click", function () {
    send("stop"); this.disabled = true; bi.disabled = true; hi.disabled = true;
    link.textContent = "stopping…";
  });
  (function hello() {
    if (acked || !document.body.contains(root)) { return; }
    send(now());
    if (++tries < 30) { setTimeout(hello, tries < 6 ? 400 : 1500); }
    else { root.setAttribute("data-race-live", "no"); link.textContent = "not connected to the kernel: re-run the cell"; }
  })();
})();
</script>`, domID, address, bs, hs, int(opt.Idle.Seconds()))
	return b.String()
}

// staticControlsHTML replaces the sliders when the race stops listening.
func staticControlsHTML(note string) string {
	return controlsStyle + `<div class="whygpu-race-controls whygpu-race-static" data-race-live="no">` +
		`<span class="whygpu-race-link">` + html.EscapeString(note) + `</span></div>`
}

const controlsStyle = `<style>
.whygpu-race-controls{display:flex;flex-wrap:wrap;align-items:center;gap:6px 18px;font-family:var(--jp-content-font-family,sans-serif);color:var(--jp-content-font-color1,#222);margin:4px 0}
.whygpu-race-controls input[type=range]{vertical-align:middle;width:12em}
.whygpu-race-controls output{display:inline-block;min-width:3em;font-weight:600;font-variant-numeric:tabular-nums}
.whygpu-race-link{font-size:85%;color:var(--jp-content-font-color2,#666)}
</style>`
