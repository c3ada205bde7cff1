package display

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/support/panics"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/controls"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// PanelOptions tune how long a Panel listens (zero values: Handshake 6 s,
// Idle 90 s, Lifetime 10 min).
type PanelOptions struct {
	Handshake, Idle, Lifetime time.Duration
}

//go:embed panelhtml
var panelFiles embed.FS

var panelTemplates = template.Must(template.ParseFS(panelFiles, "panelhtml/*"))

func renderPanel(name string, data any) string {
	var b strings.Builder
	if err := panelTemplates.ExecuteTemplate(&b, name, data); err != nil {
		return `<div class="whygpu-error">panel widget: ` + template.HTMLEscapeString(err.Error()) + `</div>`
	}
	return b.String()
}

// Panel shows controls and, under them, view(values) — a chart with its formula in a fold —
// redrawn in place whenever a control changes. It is the sizing widget of lesson 06; view must be
// quick (it runs on every change).
//
// Why hand-written controls instead of gonbui/widgets (v0.11.4): for the reasons lesson 01's race
// gives (lessons/race/raceview) — widgets draws its inputs from JavaScript only once the page's
// comms answer, so a headless or exported notebook would show no controls and no result — and
// because the sizing needs drop-downs and number fields side by side, sent as one message so the
// view never mixes two settings. It speaks GoNB's comms, as widgets does (Listen, Ack).
//
// Its lifetime is the race's: it shows the starting values' view at once and greets the page; in
// JupyterLab the controls are live until Stop, Idle without a change, Lifetime, or an interrupt;
// with no browser (headless nbclient, nbconvert) it replaces the controls with a note after
// Handshake; with WHYGPU_WIDGETS=off it does not wait; outside a notebook it prints the view once.
// What is left in the notebook is plain HTML (the last view's SVG chart and fold, no script).
//
// Stable hooks for a browser test: div.whygpu-panel-controls (data-panel-live = "connecting",
// "yes", "no") holding [data-panel-input=<control name>] inputs and button[data-panel-stop]; the
// view is div.whygpu-panel with data-panel-round (1, +1 per redraw), data-panel-state ("done" or
// "error"), data-panel-values (the values as JSON), .whygpu-panel-chart and details.whygpu-panel-fold.
func Panel(form []controls.Control, view func(controls.Values) controls.View, opt PanelOptions) error {
	if opt.Handshake == 0 {
		opt.Handshake = 6 * time.Second
	}
	if opt.Idle == 0 {
		opt.Idle = 90 * time.Second
	}
	if opt.Lifetime == 0 {
		opt.Lifetime = 10 * time.Minute
	}
	values := controls.Starting(form)
	p := &panel{form: form, view: view, uid: NewID()}
	first := p.safeView(values)
	if !InNotebook() {
		fmt.Println(viewText(first))
		return first.Err
	}
	widgets := Widgets()
	var msgs <-chan string
	if widgets {
		var stop func()
		msgs, stop = Listen(p.address())
		defer stop()
		p.idleSecs = int(opt.Idle.Seconds())
		p.showControls(values)
	}
	if first.Set != nil {
		values = p.apply(values, first.Set, widgets)
	}
	p.show(values, first)
	if !widgets {
		return first.Err
	}
	handshake, idle, lifetime := time.NewTimer(opt.Handshake), time.NewTimer(time.Hour), time.NewTimer(opt.Lifetime)
	idle.Stop()
	defer handshake.Stop()
	defer idle.Stop()
	defer lifetime.Stop()
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	defer signal.Stop(interrupt)
	connected, lastSeq, reason := false, -1, ""
	for reason == "" {
		select {
		case msg := <-msgs:
			if msg == "stop" {
				reason = "Stop was clicked"
				break
			}
			seq, vals, ok := p.parse(msg)
			if !ok {
				continue
			}
			if !connected {
				connected = true
				handshake.Stop()
			}
			Ack(p.address()) // every message: a redrawn form greets again
			idle.Reset(opt.Idle)
			if seq <= lastSeq {
				continue
			}
			lastSeq = seq
			if !sameValues(vals, values) {
				values = vals
				v := p.safeView(values)
				if v.Set != nil {
					values = p.apply(values, v.Set, true)
				}
				p.show(values, v)
			}
		case <-handshake.C:
			if !connected {
				reason = "no browser"
			}
		case <-idle.C:
			reason = fmt.Sprintf("nothing changed for %s", units.Long(opt.Idle.Seconds()))
		case <-lifetime.C:
			reason = fmt.Sprintf("it reached its %s limit", units.Long(opt.Lifetime.Seconds()))
		case <-interrupt:
			reason = "the cell was interrupted"
		}
	}
	note := fmt.Sprintf("The controls stopped because %s: re-run the cell to change them again. The view below is for %s.", reason, valuesText(values))
	if !connected {
		note = "Drawn for " + valuesText(values) + ". The controls work when this notebook runs in JupyterLab: run the cell there to change them (or edit the values in the cell)."
	}
	send(p.controlsID(), renderPanel("static", note), note)
	Flush()
	return first.Err
}

type panel struct {
	idleSecs int
	form     []controls.Control
	view     func(controls.Values) controls.View
	uid      string
	round    int
}

func (p *panel) address() string    { return "/whygpu/panel/" + p.uid }
func (p *panel) controlsID() string { return "whygpu-panel-controls-" + p.uid }
func (p *panel) viewID() string     { return "whygpu-panel-view-" + p.uid }

// showControls draws the form at values (in place of the previous one).
func (p *panel) showControls(values controls.Values) {
	form := make([]controls.Control, len(p.form))
	for i, c := range p.form {
		c.Value = values[c.Name]
		form[i] = c
	}
	send(p.controlsID(), renderPanel("controls", struct {
		ID, Address string
		IdleSecs    int
		Controls    []controls.Control
	}{p.controlsID(), p.address(), p.idleSecs, form}), "controls: "+valuesText(values))
}

// apply returns values with set's values in place (the valid ones) and, when the form is live and
// something changed, redraws the form with them.
func (p *panel) apply(values, set controls.Values, live bool) controls.Values {
	out := controls.Values{}
	for k, v := range values {
		out[k] = v
	}
	for _, c := range p.form {
		if v, ok := set[c.Name]; ok && c.Check(v) == nil {
			out[c.Name] = v
		}
	}
	if live && !sameValues(out, values) {
		p.showControls(out)
	}
	return out
}

// safeView runs view, turning a panic into an error.
func (p *panel) safeView(values controls.Values) (v controls.View) {
	defer panics.Catch(&v.Err, "the view for %s failed", valuesText(values))
	return p.view(values)
}

// parse reads "seq:{json}" and checks every value against its control.
func (p *panel) parse(msg string) (int, controls.Values, bool) {
	head, tail, found := strings.Cut(msg, ":")
	seq, err := strconv.Atoi(head)
	if !found || err != nil {
		return 0, nil, false
	}
	vals := controls.Values{}
	if json.Unmarshal([]byte(tail), &vals) != nil || controls.Check(p.form, vals) != nil {
		return 0, nil, false
	}
	return seq, vals, true
}

// show draws a view in place of the previous one.
func (p *panel) show(values controls.Values, v controls.View) {
	p.round++
	js, jsErr := json.Marshal(values)
	d := struct {
		Round                       int
		State, Values, Caption, Err string
		FoldSummary, Fold           string
		SVG, Badges                 template.HTML
	}{Round: p.round, State: "done", Values: string(js), Caption: v.Caption, FoldSummary: v.FoldSummary, Fold: v.Fold}
	if d.FoldSummary == "" {
		d.FoldSummary = "the formula"
	}
	if v.Err != nil {
		d.State, d.Err = "error", v.Err.Error()
	}
	if jsErr != nil { // the page could not tell which values this view is for: say so
		d.State, d.Err = "error", "panel: the controls' values: "+jsErr.Error()
	}
	if v.Plot != nil {
		svg, err := charts.SVG(v.Plot, 0, 0)
		if err != nil {
			d.State, d.Err = "error", err.Error()
		} else {
			s := string(svg)
			if i := strings.Index(s, "<svg"); i > 0 {
				s = s[i:]
			}
			d.SVG = template.HTML(s)                                     // gonum/plot's own SVG output
			d.Badges = template.HTML(BadgesHTML(charts.Origins(v.Plot))) // escaped by BadgesHTML
		}
	}
	send(p.viewID(), renderPanel("view", d), viewText(v))
}

// viewText is a view as plain text.
func viewText(v controls.View) string {
	var parts []string
	if v.Plot != nil {
		parts = append(parts, strings.TrimSuffix(badgesText(charts.Origins(v.Plot)), "\n"), "[chart: "+v.Plot.Title.Text+"]")
	}
	if v.Caption != "" {
		parts = append(parts, v.Caption)
	}
	if v.Err != nil {
		parts = append(parts, v.Err.Error())
	}
	if v.Fold != "" {
		parts = append(parts, v.Fold)
	}
	return strings.Join(parts, "\n")
}

func valuesText(values controls.Values) string {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+" "+values[k])
	}
	return strings.Join(parts, ", ")
}

func sameValues(a, b controls.Values) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
