// Package display shows the course's results in a GoNB notebook: charts, tables, progress, errors
// and recall cards. It is the only package that knows about GoNB (gonbui); outside a notebook its
// functions print plain text to stdout instead, so lesson code also runs from `go run` and tests.
package display

import (
	"fmt"
	"html"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/charts"
)

// InNotebook reports whether the process runs as a GoNB cell.
func InNotebook() bool { return gonbui.IsNotebook }

// Chart renders a plot and shows it inline as an image/svg+xml output (PNG in plain-text runs is
// pointless, so outside a notebook it prints the title only).
func Chart(p *plot.Plot) error {
	svg, err := charts.SVG(p, 0, 0)
	if err != nil {
		return err
	}
	if !InNotebook() {
		fmt.Printf("[chart: %s]\n", p.Title.Text)
		return nil
	}
	gonbui.SendData(&protocol.DisplayData{Data: map[protocol.MIMEType]any{
		protocol.MIMEImageSVG: string(svg),
		protocol.MIMETextPlain: "chart: " + p.Title.Text,
	}})
	return nil
}

// HTML shows an HTML fragment (printed as text outside a notebook).
func HTML(fragment string) {
	if InNotebook() {
		gonbui.DisplayHTML(fragment)
		return
	}
	fmt.Println(stripTags(fragment))
}

// Markdown shows a Markdown fragment.
func Markdown(md string) {
	if InNotebook() {
		gonbui.DisplayMarkdown(md)
		return
	}
	fmt.Println(md)
}

// Table shows a table with a header row. Cells are plain text (escaped).
func Table(header []string, rows [][]string) {
	if !InNotebook() {
		fmt.Println(strings.Join(header, " | "))
		for _, r := range rows {
			fmt.Println(strings.Join(r, " | "))
		}
		return
	}
	var b strings.Builder
	b.WriteString(`<table class="whygpu-table"><thead><tr>`)
	for _, h := range header {
		fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	gonbui.DisplayHTML(b.String())
}

// Error shows an error as a clear message with what to do, without failing the cell. It returns
// the error so a cell can still branch on it.
func Error(err error) error {
	if err == nil {
		return nil
	}
	if InNotebook() {
		gonbui.DisplayHTML(fmt.Sprintf(`<div class="whygpu-error" style="border-left:4px solid #d55e00;padding:4px 8px">`+
			`<b>Could not run this step:</b> %s</div>`, html.EscapeString(err.Error())))
	} else {
		fmt.Println("could not run this step:", err)
	}
	return err
}

// Progress shows a status line that later calls update in place (UpdateHTML), for runs longer than
// a couple of seconds. Outside a notebook it prints each update on its own line.
type Progress struct{ id string }

// NewProgress shows an initial status line.
func NewProgress(text string) *Progress {
	p := &Progress{}
	if InNotebook() {
		p.id = "whygpu-progress-" + gonbui.UniqueID()
		gonbui.UpdateHTML(p.id, progressHTML(text))
	} else {
		fmt.Println(text)
	}
	return p
}

// Update replaces the status line.
func (p *Progress) Update(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if p.id != "" {
		gonbui.UpdateHTML(p.id, progressHTML(text))
	} else {
		fmt.Println(text)
	}
}

// Done replaces the status line with a final message (it stays in the output).
func (p *Progress) Done(format string, args ...any) { p.Update(format, args...) }

func progressHTML(text string) string {
	return `<div class="whygpu-progress" style="font-family:monospace">` + html.EscapeString(text) + `</div>`
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return html.UnescapeString(b.String())
}
