package units

import (
	"strings"
	"time"
)

// OriginKind says how some numbers were obtained. display draws each kind as its own badge above a
// table or chart; the zero value, Unstated, is a table that does not say (shown as such, never as
// measured).
type OriginKind int

// The kinds of origin, in the order display draws their badges.
const (
	// Unstated numbers do not say where they come from.
	Unstated OriginKind = iota
	// Live numbers were measured on this machine in this kernel run.
	Live
	// Recorded numbers were measured earlier on a named device (a reference file).
	Recorded
	// Modeled numbers come from the course's GPU model or a datasheet, not from a measurement.
	Modeled
	// Emulated numbers were measured on a stand-in for the thing named (the goroutine launch queue
	// for a CUDA stream).
	Emulated
	// Arithmetic numbers are a formula evaluated on sizes the cell chose: exact, nothing measured.
	Arithmetic
)

// Origin is where some of a table's or chart's numbers come from. It travels with the numbers
// (units.Table.Origins, charts.Origins) and display shows it as a badge: "measured live 14:03",
// "recorded on NVIDIA H200, 2026-11-30", "model — H200 datasheet" (the assumptions on hover and in a
// fold), "emulated — …", "arithmetic — no measurement".
type Origin struct {
	Kind OriginKind
	// At is when live numbers were measured (zero: display takes the stamp of the results this
	// cell recalled, else the cell's own run).
	At time.Time
	// Note is the recorded device and date ("NVIDIA H200, 2026-11-30"), a model's or emulation's
	// assumptions, or an arithmetic table's formula.
	Note string
}

// Measured is a Live origin measured at t.
func Measured(t time.Time) Origin { return Origin{Kind: Live, At: t} }

// MeasuredHere is a Live origin measured in this kernel run: display stamps it with the time of the
// results the cell recalled, or the cell's own run.
func MeasuredHere() Origin { return Origin{Kind: Live} }

// RecordedOn is a Recorded origin: the device and the date, "NVIDIA H200, 2026-11-30".
func RecordedOn(deviceAndDate string) Origin { return Origin{Kind: Recorded, Note: deviceAndDate} }

// Model is a Modeled origin with its assumptions.
func Model(assumptions string) Origin { return Origin{Kind: Modeled, Note: assumptions} }

// EmulatedBy is an Emulated origin: what stands in for what.
func EmulatedBy(standIn string) Origin { return Origin{Kind: Emulated, Note: standIn} }

// Formula is an Arithmetic origin: the formula evaluated, nothing measured.
func Formula(formula string) Origin { return Origin{Kind: Arithmetic, Note: formula} }

// badgeShort is the longest note a badge says inline; a longer one is in the badge's fold.
const badgeShort = 44

// Label is the badge's text: "measured live 14:03", "recorded on NVIDIA H200, 2026-11-30",
// "model — H200 datasheet" (a note longer than a badge holds: its first words and "…"),
// "emulated — …", "arithmetic — no measurement", "origin not stated".
func (o Origin) Label() string {
	switch o.Kind {
	case Live:
		if o.At.IsZero() {
			return "measured live"
		}
		return "measured live " + o.At.Local().Format("15:04")
	case Recorded:
		if o.Note == "" {
			return "recorded earlier"
		}
		return "recorded on " + o.Note
	case Modeled:
		return "model — " + o.short("no assumptions stated")
	case Emulated:
		return "emulated — " + o.short("no stand-in stated")
	case Arithmetic:
		return "arithmetic — no measurement"
	}
	return "origin not stated"
}

// Folded reports whether the note is longer than the badge says inline: display puts it in a fold.
func (o Origin) Folded() bool {
	switch o.Kind {
	case Modeled, Emulated:
		return len([]rune(o.Note)) > badgeShort
	case Arithmetic:
		return o.Note != ""
	}
	return false
}

// short is the note when it fits a badge, else its first words and "…" (the whole note is then in
// the badge's fold), or none when there is no note.
func (o Origin) short(none string) string {
	r := []rune(o.Note)
	switch {
	case len(r) == 0:
		return none
	case len(r) <= badgeShort:
		return o.Note
	}
	cut := string(r[:badgeShort-8])
	if i := strings.LastIndexAny(cut, " ,;:("); i > badgeShort/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:(") + "…"
}

// Same reports whether two origins draw the same badge (live ones: to the minute).
func (o Origin) Same(p Origin) bool {
	return o.Kind == p.Kind && o.Label() == p.Label() && o.Note == p.Note
}

// Distinct returns the origins without repeats, in order of first appearance — one badge per origin.
func Distinct(os []Origin) []Origin {
	var out []Origin
next:
	for _, o := range os {
		o.Note = strings.TrimSpace(o.Note)
		for _, p := range out {
			if p.Same(o) {
				continue next
			}
		}
		out = append(out, o)
	}
	return out
}
