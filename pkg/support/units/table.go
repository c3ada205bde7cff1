package units

import (
	"fmt"
	"strings"
)

// Table is a small table a lesson builds and display.Table prints: a header row, rows of plain-text
// cells, and notes (where its numbers come from) printed under it, one per line.
type Table struct {
	Header []string
	Rows   [][]string
	Notes  []string
	// Disturbed holds, per row (same index as Rows; missing entries are quiet), what disturbed the
	// timed measurement behind that row — results.WhyDisturbed of the results it was built from — or ""
	// for a quiet one. A disturbed row is shown with a DisturbedMark cell and explained, with what to
	// do, in one footnote (DisturbedNote); it is never dropped, and a quiet row is never marked.
	Disturbed []string
	// Origins say where the numbers come from (measured live, recorded on a device, a model with its
	// assumptions, emulated, or arithmetic): display draws one badge per distinct origin above the
	// table. A table without one is shown with an "origin not stated" badge, never as measured.
	Origins []Origin
}

// From adds where (some of) the table's numbers come from.
func (t *Table) From(origins ...Origin) { t.Origins = append(t.Origins, origins...) }

// DisturbedMark starts the cell added to a disturbed row ("⚠ disturbed (1)").
const DisturbedMark = "⚠ disturbed"

// NewTable starts a table with this header.
func NewTable(header ...string) Table { return Table{Header: header} }

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// AddMeasured appends a row built from timed measurements and what disturbed them ("" when quiet).
func (t *Table) AddMeasured(disturbed string, cells ...string) {
	t.Add(cells...)
	t.MarkDisturbed(len(t.Rows)-1, disturbed)
}

// MarkDisturbed records what disturbed the measurement behind row i ("" leaves it quiet).
func (t *Table) MarkDisturbed(i int, why string) {
	if why == "" || i < 0 || i >= len(t.Rows) {
		return
	}
	for len(t.Disturbed) <= i {
		t.Disturbed = append(t.Disturbed, "")
	}
	t.Disturbed[i] = why
}

// disturbedRefs numbers the distinct reasons of the disturbed rows in order of appearance: refs[i]
// is row i's footnote number (0: quiet).
func (t Table) disturbedRefs() (refs []int, whys []string) {
	refs = make([]int, len(t.Rows))
	seen := map[string]int{}
	for i := range t.Rows {
		if i >= len(t.Disturbed) || t.Disturbed[i] == "" {
			continue
		}
		n, ok := seen[t.Disturbed[i]]
		if !ok {
			whys = append(whys, t.Disturbed[i])
			n = len(whys)
			seen[t.Disturbed[i]] = n
		}
		refs[i] = n
	}
	return refs, whys
}

// Marked is the header and the rows as shown: when any row is disturbed, a last column holds
// "⚠ disturbed (n)" in each disturbed row (n: its reason in DisturbedNote) and nothing in quiet ones.
func (t Table) Marked() ([]string, [][]string) {
	refs, whys := t.disturbedRefs()
	if len(whys) == 0 {
		return t.Header, t.Rows
	}
	header := append(append([]string{}, t.Header...), "")
	rows := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		mark := ""
		if refs[i] > 0 {
			mark = fmt.Sprintf("%s (%d)", DisturbedMark, refs[i])
		}
		rows[i] = append(append([]string{}, r...), mark)
	}
	return header, rows
}

// DisturbedNote is the one footnote explaining the disturbed rows and what to do ("" when every row
// is quiet).
func (t Table) DisturbedNote() string {
	_, whys := t.disturbedRefs()
	if len(whys) == 0 {
		return ""
	}
	parts := make([]string, len(whys))
	for i, w := range whys {
		parts[i] = fmt.Sprintf("(%d) %s", i+1, w)
	}
	return DisturbedMark + ": " + strings.Join(parts, "; ") +
		". The marked times include other work and are slower than the hardware: rerun when the machine is quiet."
}

// Note appends a note.
func (t *Table) Note(note string) { t.Notes = append(t.Notes, note) }

// NotesText is the notes, one per line, then DisturbedNote ("" without either).
func (t Table) NotesText() string {
	notes := t.Notes
	if d := t.DisturbedNote(); d != "" {
		notes = append(append([]string{}, notes...), d)
	}
	if len(notes) == 0 {
		return ""
	}
	return strings.Join(notes, "\n") + "\n"
}

// Plain is the header and the rows as plain text (Marked: disturbed rows carry their mark), cells
// separated by " | ", one row per line.
func (t Table) Plain() string {
	header, rows := t.Marked()
	var b strings.Builder
	b.WriteString(strings.Join(header, " | ") + "\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r, " | ") + "\n")
	}
	return b.String()
}

// String is the table as plain text (for tests and logs): Plain followed by NotesText.
func (t Table) String() string { return t.Plain() + t.NotesText() }

// Parts returns the header and the rows apart.
func (t Table) Parts() ([]string, [][]string) { return t.Header, t.Rows }
