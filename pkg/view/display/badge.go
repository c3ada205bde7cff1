package display

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpu-course/whygpu/pkg/support/units"
)

// The origin badges: above every chart and table, one small badge per distinct origin of its numbers
// (units.Origin), taken from what the chart or table carries — charts.Origins of the plot, a table's
// Origins, the results' provenance — never typed in a cell:
//
//	● measured live 14:03                  measured in this kernel run (the time of the measurement)
//	○ recorded on NVIDIA H200, 2026-11-30  a reference recording of a named device
//	◇ model — H200 datasheet               pkg/model/gpumodel or a datasheet; the assumptions on hover, a long
//	                                       note in the badge's fold (click it)
//	◌ emulated — …                         measured on a stand-in for the thing named
//	= arithmetic — no measurement          a formula on the cell's sizes; the formula in the fold
//	? origin not stated                    a table that does not say (a bug to fix, never shown as live)
//
// The symbol and the words say the origin; the colour only repeats it. Badges use translucent tints
// with the theme's text colour, so they read in JupyterLab's light and dark themes. Browser and
// notebook tests find them by the class whygpu-badge and the data-origin attribute.

// recalled holds the stamps of what this process recalled (results.RecallHook): a live chart's
// numbers were measured then, not when the cell that draws them runs.
var recalled struct {
	sync.Mutex
	times []time.Time
}

// noteRecalled records a recalled result's stamp time.
func noteRecalled(t time.Time) {
	recalled.Lock()
	defer recalled.Unlock()
	recalled.times = append(recalled.times, t)
}

// now is the clock of a badge of numbers measured in this very cell (a test replaces it).
var now = time.Now

// liveTimes are the times a live origin without its own time was measured: the stamps of what this
// cell recalled, else the cell's own run (now).
func liveTimes() []time.Time {
	recalled.Lock()
	defer recalled.Unlock()
	if len(recalled.times) == 0 {
		return []time.Time{now()}
	}
	return slices.Clone(recalled.times)
}

// liveSpan is the one live badge's label over the times its numbers were measured: "measured live
// 14:03", or "measured live 14:03–14:10" when they span minutes.
func liveSpan(ts []time.Time) string {
	lo, hi := slices.MinFunc(ts, time.Time.Compare), slices.MaxFunc(ts, time.Time.Compare)
	label := units.Measured(lo).Label()
	if last := hi.Local().Format("15:04"); last != lo.Local().Format("15:04") {
		label += "–" + last
	}
	return label
}

// badgeKinds are each kind's name (data-origin), symbol and tint.
var badgeKinds = map[units.OriginKind]struct{ name, symbol, tint string }{
	units.Live:       {"live", "●", "0,158,115"},     // bluish green
	units.Recorded:   {"recorded", "○", "0,114,178"}, // blue
	units.Modeled:    {"model", "◇", "230,159,0"},    // orange
	units.Emulated:   {"emulated", "◌", "204,121,167"},
	units.Arithmetic: {"arithmetic", "=", "128,128,128"},
	units.Unstated:   {"unstated", "?", "213,94,0"},
}

// badge is one origin as shown: its label and what the fold or hover holds.
type badge struct {
	kind  units.OriginKind
	label string
	note  string // the full note (hover), "" for none
	fold  bool   // the note in a fold below the badge
}

// badgesOf resolves origins to badges: one per distinct label; all live origins make one badge
// spanning the times they were measured (a live origin without a time: when this cell's results
// were measured); none at all reads as one "origin not stated".
func badgesOf(os []units.Origin) []badge {
	if len(os) == 0 {
		os = []units.Origin{{Kind: units.Unstated}}
	}
	var out []badge
	var live []time.Time
	for _, o := range units.Distinct(os) {
		if o.Kind == units.Live { // its note repeats the device, which the table or legend says
			if o.At.IsZero() {
				live = append(live, liveTimes()...)
			} else {
				live = append(live, o.At)
			}
			continue
		}
		b := badge{kind: o.Kind, label: o.Label(), note: o.Note, fold: o.Folded()}
		if o.Kind == units.Recorded && o.Note != "" {
			b.note = "" // the label says it
		}
		if !slices.ContainsFunc(out, func(c badge) bool { return c.label == b.label && c.note == b.note }) {
			out = append(out, b)
		}
	}
	if len(live) > 0 {
		out = append([]badge{{kind: units.Live, label: liveSpan(live)}}, out...)
	}
	slices.SortStableFunc(out, func(a, b badge) int { return order(a.kind) - order(b.kind) })
	return out
}

// order puts live first, then recorded, model, emulated, arithmetic, and unstated last.
func order(k units.OriginKind) int {
	if k == units.Unstated {
		return 99
	}
	return int(k)
}

// BadgesHTML is the row of badges for these origins.
func BadgesHTML(os []units.Origin) string {
	var b strings.Builder
	b.WriteString(`<div class="whygpu-badges" style="display:flex;flex-wrap:wrap;gap:4px;align-items:flex-start;margin:2px 0 4px;` +
		`font-family:var(--jp-ui-font-family,sans-serif);font-size:12px;line-height:1.5">`)
	for _, bd := range badgesOf(os) {
		k := badgeKinds[bd.kind]
		style := fmt.Sprintf(`display:inline-block;padding:0 7px;border-radius:9px;border:1px solid rgba(%s,0.9);`+
			`background:rgba(%s,0.16);color:inherit;white-space:nowrap`, k.tint, k.tint)
		title := "origin: " + bd.label
		if bd.note != "" && !strings.Contains(bd.label, bd.note) {
			title += " — " + bd.note
		}
		span := fmt.Sprintf(`<span class="whygpu-badge" data-origin="%s" title="%s" style="%s"><span aria-hidden="true">%s</span> %s</span>`,
			k.name, html.EscapeString(title), style, k.symbol, html.EscapeString(bd.label))
		if !bd.fold {
			b.WriteString(span)
			continue
		}
		fmt.Fprintf(&b, `<details class="whygpu-badge-fold" style="display:inline-block;max-width:100%%">`+
			`<summary style="cursor:pointer;list-style-position:inside">%s</summary>`+
			`<div style="margin:2px 0 0 12px;padding:2px 6px;border-left:2px solid rgba(%s,0.9);white-space:normal">%s</div></details>`,
			span, k.tint, html.EscapeString(bd.note))
	}
	b.WriteString(`</div>`)
	return b.String()
}

// badgesText is the badges as one plain-text line: "[measured live 14:03] [model — H200 datasheet]",
// each long note after its badge.
func badgesText(os []units.Origin) string {
	var parts []string
	for _, bd := range badgesOf(os) {
		s := "[" + bd.label + "]"
		if bd.fold {
			s += " (" + bd.note + ")"
		}
		parts = append(parts, s)
	}
	return "origin: " + strings.Join(parts, " ") + "\n"
}
