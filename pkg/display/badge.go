package display

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpu-course/whygpu/pkg/units"
)

// The origin badges: above every chart and table, one small badge per distinct origin of its numbers
// (units.Origin), taken from what the chart or table carries — charts.Origins of the plot, a table's
// Origins, the results' provenance — never typed in a cell:
//
//	● measured live 14:03                  measured in this kernel run (the time of the measurement)
//	○ recorded on NVIDIA H200, 2026-11-30  a reference recording of a named device
//	◇ model — H200 datasheet               pkg/gpumodel or a datasheet; the assumptions on hover, a long
//	                                       note in the badge's fold (click it)
//	◌ emulated — …                         measured on a stand-in for the thing named
//	= arithmetic — no measurement          a formula on the cell's sizes; the formula in the fold
//	? origin not stated                    a table that does not say (a bug to fix, never shown as live)
//
// The symbol and the words say the origin; the colour only repeats it. Badges use translucent tints
// with the theme's text colour, so they read in JupyterLab's light and dark themes. Browser and
// notebook tests find them by the class whygpu-badge and the data-origin attribute.

// recalled holds the stamps of what this process recalled (measure.RecallHook): a live chart's
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

// liveLabel is a live badge without its own time: the span of the recalled stamps, else now.
func liveLabel() string {
	recalled.Lock()
	ts := slices.Clone(recalled.times)
	recalled.Unlock()
	if len(ts) == 0 {
		return units.Measured(now()).Label()
	}
	lo, hi := slices.MinFunc(ts, time.Time.Compare), slices.MaxFunc(ts, time.Time.Compare)
	first, last := lo.Local().Format("15:04"), hi.Local().Format("15:04")
	if first == last {
		return units.Measured(lo).Label()
	}
	return units.Measured(lo).Label() + "–" + last
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

// badgesOf resolves origins to badges: one per distinct label, a live origin without a time given
// the time its numbers were measured, none at all read as one "origin not stated".
func badgesOf(os []units.Origin) []badge {
	if len(os) == 0 {
		os = []units.Origin{{Kind: units.Unstated}}
	}
	var out []badge
	for _, o := range units.Distinct(os) {
		b := badge{kind: o.Kind, label: o.Label(), note: o.Note, fold: o.Folded()}
		if o.Kind == units.Live {
			if o.At.IsZero() {
				b.label = liveLabel()
			}
			b.note = "" // a live note repeats the device, which the table or legend says
		}
		if o.Kind == units.Recorded && o.Note != "" {
			b.note = ""
		}
		if !slices.ContainsFunc(out, func(c badge) bool { return c.label == b.label && c.note == b.note }) {
			out = append(out, b)
		}
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

// badgesHTML is the row of badges for these origins.
func badgesHTML(os []units.Origin) string {
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
