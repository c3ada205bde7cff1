package display

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Devices shows which devices this machine has, what each one is, and the fix for missing ones.
func Devices(statuses []devices.Status) {
	var rows [][]string
	for _, s := range statuses {
		state := "available"
		if !s.Available {
			state = "not available"
		}
		detail := s.Detail
		if s.Fix != "" {
			detail += " — fix: " + s.Fix
		}
		rows = append(rows, []string{s.Name, state, detail})
	}
	Table(units.Table{Header: []string{"device", "state", "detail"}, Rows: rows, Origins: []units.Origin{units.Measured(now())}})
}

// Opened shows opened devices with their model and ceilings.
func Opened(devs []*devices.Device) {
	var rows [][]string
	origins := []units.Origin{units.Measured(now())} // the devices opened here, now
	for _, d := range devs {
		peak := "unknown"
		if p := d.Ceilings.Peak("float32"); p > 0 {
			peak = fmt.Sprintf("%.1f GFLOP/s", p/1e9)
			origins = append(origins, units.Model(d.Ceilings.Source)) // a datasheet or the course's CPU model
		}
		rows = append(rows, []string{d.Name, d.Model, d.PJRTVersion, peak, d.Ceilings.Source})
	}
	Table(units.Table{Header: []string{"device", "model", "PJRT API", "f32 peak", "where the peak comes from"}, Rows: rows, Origins: origins})
}

// Results shows timing results as a table: device, workload, median, spread, rates.
func Results(rs []results.Result) {
	var rows [][]string
	var advice []string
	for _, r := range rs {
		rows = append(rows, []string{
			r.Provenance.Label(), r.Label,
			medianCell(r, &advice),
			minP90(r.Stats), cv(r.Stats),
			fmt.Sprintf("%.1f", r.GFLOPS()),
			fmt.Sprintf("%.2f", r.BytesPerSec()/1e9),
		})
	}
	Table(units.Table{Header: []string{"device", "workload", "median", "min / p90", "CV", "GFLOP/s", "GB/s"}, Rows: rows, Origins: results.Origins(rs)})
	for _, a := range advice {
		Markdown(a)
	}
}

// minP90 is "min / p90", or for one sample (results.Stats.OneSample) what it is: no spread to show.
func minP90(s results.Stats) string {
	if s.OneSample() {
		return fmt.Sprintf("one sample of %d runs", max(s.RunsPerSample, 1))
	}
	return fmt.Sprintf("%s / %s", s.Min.Round(time.Microsecond), s.P90.Round(time.Microsecond))
}

// cv is the coefficient of variation, "—" for one sample (its 0 would read as perfectly steady).
func cv(s results.Stats) string {
	if s.OneSample() {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*s.CV)
}

// medianCell is a result's median time, marked "DISTURBED (n)" when other processes or a CPU quota
// disturbed it; the footnote with what to do is appended to advice. A disturbed result is shown, never
// dropped.
func medianCell(r results.Result, advice *[]string) string {
	m := r.Stats.Median.Round(time.Microsecond).String()
	if !r.Stats.Disturbed() {
		return m
	}
	*advice = append(*advice, fmt.Sprintf("(%d) %s: %s", len(*advice)+1, r.Label, r.Stats.Disturbance.Advice()))
	return fmt.Sprintf("%s DISTURBED (%d)", m, len(*advice))
}

// ResultsTable shows results as a table in which every row says where its numbers come from —
// "measured live" or "recorded <date>" — with a numbered footnote per provenance giving the
// device, model, driver, PJRT plugin, GoMLX and go-xla versions, host and date. Use it wherever a
// lesson puts live and recorded numbers side by side.
func ResultsTable(caption string, rs []results.Result) {
	header := []string{"source", "device", "workload", "median", "min / p90", "CV", "GFLOP/s", "GB/s", "% of peak"}
	notes, index := provenanceNotes(rs)
	var rows [][]string
	var advice []string
	for _, r := range rs {
		src := r.Provenance.Origin()
		peak := "–"
		if r.PeakFLOPS > 0 {
			peak = fmt.Sprintf("%.0f%%", r.PercentOfPeak())
		}
		rows = append(rows, []string{
			fmt.Sprintf("%s [%d]", src, index[provenanceKey(r.Provenance)]),
			r.Provenance.Device, r.Label,
			medianCell(r, &advice),
			minP90(r.Stats), cv(r.Stats),
			fmt.Sprintf("%.1f", r.GFLOPS()),
			fmt.Sprintf("%.2f", r.BytesPerSec()/1e9),
			peak,
		})
	}
	origins := results.Origins(rs)
	if !InNotebook() {
		if caption != "" {
			fmt.Println(caption)
		}
		fmt.Print(badgesText(origins))
		fmt.Print(units.Table{Header: header, Rows: rows}.Plain())
		for i, n := range notes {
			fmt.Printf("[%d] %s\n", i+1, n)
		}
		for _, a := range advice {
			fmt.Println(a)
		}
		return
	}
	var b strings.Builder
	b.WriteString(`<div class="whygpu-results">`)
	if caption != "" {
		fmt.Fprintf(&b, `<div style="font-weight:600;margin:4px 0">%s</div>`, html.EscapeString(caption))
	}
	b.WriteString(BadgesHTML(origins))
	b.WriteString(tableHTML(header, rows))
	b.WriteString(`<ol class="whygpu-provenance" style="font-size:85%;margin:4px 0 0;color:var(--jp-content-font-color2,#555)">`)
	for _, n := range notes {
		fmt.Fprintf(&b, "<li>%s</li>", html.EscapeString(n))
	}
	b.WriteString("</ol>")
	for _, a := range advice {
		fmt.Fprintf(&b, `<div class="whygpu-disturbed" style="color:#a15c00;font-size:90%%">%s</div>`, html.EscapeString(a))
	}
	b.WriteString("</div>")
	plain := caption + "\n" + badgesText(origins) + strings.Join(header, " | ") + "\n"
	for _, r := range rows {
		plain += strings.Join(r, " | ") + "\n"
	}
	for i, n := range notes {
		plain += fmt.Sprintf("[%d] %s\n", i+1, n)
	}
	for _, a := range advice {
		plain += a + "\n"
	}
	send("", b.String(), plain)
}

// provenanceKey identifies a provenance for the footnotes (the measuring session, to the day).
func provenanceKey(p results.Provenance) string {
	return strings.Join([]string{p.Device, p.Model, p.Driver, p.Plugin, p.PJRTVersion, p.GoMLX, p.GoXLA, p.Host,
		p.Date.Format("2006-01-02"), fmt.Sprint(p.Recorded)}, "\x00")
}

// provenanceNotes returns one footnote per distinct provenance, in order of appearance, and the
// 1-based footnote number of each provenance key.
func provenanceNotes(rs []results.Result) ([]string, map[string]int) {
	var notes []string
	index := map[string]int{}
	for _, r := range rs {
		k := provenanceKey(r.Provenance)
		if _, ok := index[k]; ok {
			continue
		}
		index[k] = len(notes) + 1
		notes = append(notes, ProvenanceNote(r.Provenance))
	}
	return notes, index
}

// ProvenanceNote describes where and when a result was measured, in one line: "recorded on
// 2026-11-30 · xla:cuda · NVIDIA H200 (139 GiB) · driver 570.86 · plugin pjrt_c_api_cuda_plugin.so
// (PJRT 0.54) · GoMLX v0.28.1 · go-xla v0.4.0 · host gpu-1".
func ProvenanceNote(p results.Provenance) string {
	when := "measured live on " + p.Date.Format("2006-01-02 15:04 MST")
	if p.Recorded {
		when = "recorded on " + p.Date.Format("2006-01-02")
	}
	parts := []string{when, p.Device}
	add := func(label, v string) {
		if v != "" {
			parts = append(parts, label+v)
		}
	}
	add("", p.Model)
	add("driver ", p.Driver)
	plugin := p.Plugin
	if p.PJRTVersion != "" {
		plugin = strings.TrimSpace(plugin + " (PJRT " + p.PJRTVersion + ")")
	}
	add("plugin ", plugin)
	add("GoMLX ", p.GoMLX)
	add("go-xla ", p.GoXLA)
	add("", p.Go)
	add("host ", p.Host)
	return strings.Join(parts, " · ")
}
