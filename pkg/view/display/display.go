package display

import (
	"fmt"
	"html"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// In a notebook, a cell that recalls kept results says when they were measured, above what it shows
// from them: "(measured live at 14:03 on xla:cpu (12 results, 6 sizes))". results.Recall has refused
// them if another run or a failed cell kept them.
func init() {
	results.RecallHook = func(k results.Kept) {
		noteRecalled(k.Time)
		if InNotebook() {
			fmt.Printf("(%s)\n", k.Line())
		}
	}
}

// InNotebook reports whether the process runs as a GoNB cell.
func InNotebook() bool { return gonbui.IsNotebook }

// Chart renders a plot and shows it inline as an image/svg+xml output (not gonbui.DisplaySVG,
// which would send it as text/html), under a row of origin badges (charts.Origins: measured live,
// recorded on a device, model, emulated, arithmetic). Outside a notebook it prints the badges and
// the title only.
func Chart(p *plot.Plot) error {
	return chart(p, protocol.MIMEImageSVG, func(p *plot.Plot) (any, error) {
		svg, err := charts.SVG(p, 0, 0)
		return string(svg), err
	})
}

// ChartPNG renders a plot and shows it inline as an image/png output: for charts with very many
// points (long utilization timelines), where an SVG would be heavy. Outside a notebook it prints
// the title only.
func ChartPNG(p *plot.Plot) error {
	// PNG bytes travel base64-encoded in the Jupyter message, as gonbui.DisplayPng sends them.
	return chart(p, protocol.MIMEImagePNG, func(p *plot.Plot) (any, error) { return charts.PNG(p, 0, 0) })
}

// chart renders p and shows it under one image MIME type, with its title as the plain-text form.
func chart(p *plot.Plot, mime protocol.MIMEType, render func(*plot.Plot) (any, error)) error {
	img, err := render(p)
	if err != nil {
		return err
	}
	gpuFailureLine()
	origins := charts.Origins(p)
	if !InNotebook() {
		fmt.Print(badgesText(origins))
		fmt.Printf("[chart: %s]\n", p.Title.Text)
		return nil
	}
	send("", BadgesHTML(origins), badgesText(origins))
	emit(&protocol.DisplayData{Data: map[protocol.MIMEType]any{
		mime:                   img,
		protocol.MIMETextPlain: "chart: " + p.Title.Text,
	}})
	return nil
}

// Plot shows the chart a charts function returns, or the error that stopped it, so a cell is one
// line: display.Plot(charts.TimeVsBatch(title, series)). It returns that error.
func Plot(p *plot.Plot, err error) error {
	if err != nil {
		return Error(err)
	}
	return Error(Chart(p))
}

// send shows HTML with a plain-text alternative (what headless runs and text views read); with a
// display ID it creates or replaces that output block in place.
func send(displayID, htmlText, plain string) {
	data := &protocol.DisplayData{
		Data:      map[protocol.MIMEType]any{protocol.MIMETextHTML: htmlText, protocol.MIMETextPlain: plain},
		DisplayID: displayID,
	}
	if displayID != "" {
		gonbui.SendData(data) // in-place updates (progress) are superseded anyway: no need to wait
		return
	}
	emit(data)
}

// emit sends one output and waits until GoNB has taken it (gonbui.Sync). A cell's program may exit
// right after its last output; without the wait, a heavily loaded machine was seen to lose that output
// (a chart cell came back empty).
func emit(data *protocol.DisplayData) {
	gonbui.SendData(data)
	gonbui.Sync()
}

// HTML shows an HTML fragment (printed as text outside a notebook).
func HTML(fragment string) {
	if InNotebook() {
		emit(&protocol.DisplayData{Data: map[protocol.MIMEType]any{protocol.MIMETextHTML: fragment}})
		return
	}
	fmt.Println(stripTags(fragment))
}

// Markdown shows a Markdown fragment.
func Markdown(md string) {
	if InNotebook() {
		emit(&protocol.DisplayData{Data: map[protocol.MIMEType]any{protocol.MIMETextMarkdown: md}})
		return
	}
	fmt.Println(md)
}

// MarkdownTable shows a table written in Markdown (one whose cells need links, such as a model card
// citing its sources) under the row of badges of its origins, as Table does for a units.Table. A
// Markdown table is shown through it, never through Markdown, so its origin travels with it.
func MarkdownTable(md string, origins []units.Origin) {
	gpuFailureLine()
	if !InNotebook() {
		fmt.Print(badgesText(origins))
		fmt.Println(md)
		return
	}
	send("", BadgesHTML(origins), badgesText(origins))
	emit(&protocol.DisplayData{Data: map[protocol.MIMEType]any{protocol.MIMETextMarkdown: md}})
}

// Table shows a lesson's table under a row of origin badges (one per distinct units.Table.Origins;
// none: "origin not stated"), then its header row and rows (cells are plain text, escaped), then its
// notes, one per line, as text under it. Rows whose measurement was disturbed (units.Table.Disturbed)
// carry a "⚠ disturbed (n)" mark, explained with what to do in one footnote under the table. It is the
// one way a lesson's table reaches the notebook.
func Table(t units.Table) {
	gpuFailureLine()
	if !InNotebook() {
		fmt.Print(badgesText(t.Origins) + t.Plain())
	} else {
		header, rows := t.Marked()
		send("", BadgesHTML(t.Origins)+tableHTML(header, rows), badgesText(t.Origins)+t.Plain())
	}
	fmt.Print(t.NotesText())
}

// tableHTML renders a table with a header row; cells are plain text (escaped).
func tableHTML(header []string, rows [][]string) string {
	var b strings.Builder
	b.WriteString(`<table class="whygpu-table"><thead><tr>`)
	for _, h := range header {
		fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range rows {
		b.WriteString("<tr>")
		for _, c := range r {
			if strings.HasPrefix(c, units.DisturbedMark) { // a disturbed row's mark (units.Table.Marked)
				fmt.Fprintf(&b, `<td class="whygpu-disturbed" style="color:#a15c00;font-weight:600">%s</td>`, html.EscapeString(c))
				continue
			}
			fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

// GPUFailureInstead is what a chart or table shows in place of a GPU that is here but did not open.
const GPUFailureInstead = "a GPU recording or the course's GPU model in its place, each labeled as such"

// gpuFailureLine shows, above a chart or table, devices.GPUFailureNote when this process found a GPU
// that failed to open (devices.KnownGPUFailure): its lane is then a recording or the model, and the
// learner must be told why, not left to think the course has no GPU here.
func gpuFailureLine() {
	note := devices.GPUFailureNote(devices.KnownGPUFailure(), GPUFailureInstead)
	if note == "" {
		return
	}
	if InNotebook() {
		HTML(`<div class="whygpu-gpu-failed" style="border-left:4px solid #d55e00;padding:4px 8px">` + html.EscapeString(note) + `</div>`)
		return
	}
	fmt.Println(note)
}

// Error shows an error as a clear message with what to do, without failing the cell. It returns
// the error so a cell can still branch on it.
func Error(err error) error {
	if err == nil {
		return nil
	}
	if InNotebook() {
		HTML(fmt.Sprintf(`<div class="whygpu-error" style="border-left:4px solid #d55e00;padding:4px 8px">`+
			`<b>Could not run this step:</b> %s</div>`, html.EscapeString(err.Error())))
	} else {
		fmt.Println("could not run this step:", err)
	}
	return err
}

// Progress shows a status line that later calls update in place (gonbui.UpdateHTML), for runs
// longer than a couple of seconds. Outside a notebook it prints each update on its own line.
type Progress struct{ id string }

// NewProgress shows an initial status line.
func NewProgress(text string) *Progress {
	p := &Progress{}
	if InNotebook() {
		p.id = "whygpu-progress-" + gonbui.UniqueId()
		send(p.id, progressHTML(text, -1, 0), text)
	} else {
		fmt.Println(text)
	}
	return p
}

// Update replaces the status line.
func (p *Progress) Update(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if p.id != "" {
		send(p.id, progressHTML(text, -1, 0), text)
	} else {
		fmt.Println(text)
	}
}

// Step replaces the status line with a progress bar at done of total and a text:
// p.Step(3, 10, "batch %d", 64) shows "[███░░░░░░░] 3/10 batch 64".
func (p *Progress) Step(done, total int, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	plain := fmt.Sprintf("%s %d/%d %s", textBar(done, total), done, total, text)
	if p.id != "" {
		send(p.id, progressHTML(text, done, total), plain)
	} else {
		fmt.Println(plain)
	}
}

// Done replaces the status line with a final message (it stays in the output).
func (p *Progress) Done(format string, args ...any) {
	p.Update(format, args...)
	if p.id != "" {
		gonbui.Sync() // the final line must reach the notebook even if the cell ends right here
	}
}

func progressHTML(text string, done, total int) string {
	bar := ""
	if total > 0 {
		bar = fmt.Sprintf(`<progress value="%d" max="%d" style="vertical-align:middle;margin-right:8px"></progress>%d/%d `,
			done, total, done, total)
	}
	return `<div class="whygpu-progress" style="font-family:monospace">` + bar + html.EscapeString(text) + `</div>`
}

func textBar(done, total int) string {
	const n = 10
	k := 0
	if total > 0 {
		k = min(n, max(0, done*n/total))
	}
	return "[" + strings.Repeat("█", k) + strings.Repeat("░", n-k) + "]"
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
