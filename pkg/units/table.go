package units

import "strings"

// Table is a small table a lesson builds and display.Show prints: a header row, rows of plain-text
// cells, and notes (where its numbers come from) printed under it, one per line.
type Table struct {
	Header []string
	Rows   [][]string
	Notes  []string
}

// NewTable starts a table with this header.
func NewTable(header ...string) Table { return Table{Header: header} }

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Note appends a note.
func (t *Table) Note(note string) { t.Notes = append(t.Notes, note) }

// NotesText is the notes, one per line ("" without notes).
func (t Table) NotesText() string {
	if len(t.Notes) == 0 {
		return ""
	}
	return strings.Join(t.Notes, "\n") + "\n"
}

// Plain is the header and the rows as plain text, cells separated by " | ", one row per line.
func (t Table) Plain() string {
	var b strings.Builder
	b.WriteString(strings.Join(t.Header, " | ") + "\n")
	for _, r := range t.Rows {
		b.WriteString(strings.Join(r, " | ") + "\n")
	}
	return b.String()
}

// String is the table as plain text (for tests and logs): Plain followed by NotesText.
func (t Table) String() string { return t.Plain() + t.NotesText() }

// Parts returns the header and the rows apart.
func (t Table) Parts() ([]string, [][]string) { return t.Header, t.Rows }
