package charts

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Lane is one device's run in a race: the same work (e.g. one training step) timed on it.
type Lane struct {
	// Device names the lane: "xla:cpu", "xla:cuda (NVIDIA H200)".
	Device string
	// Time is the time the work took (a median).
	Time time.Duration
	// Source says whether Time was measured live, recorded on another machine, or modeled.
	Source Source
	// Note details a recorded or model source: "NVIDIA H200, 2026-11-30".
	Note string
	// Err is why the lane could not run (e.g. out of memory); Time is then ignored.
	Err error
	// Low and High are a model lane's band (both zero: Time is a single value). A model is drawn as
	// its band, never as one bar that looks measured; Time is then the band's middle, for ordering.
	Low, High time.Duration
}

// Banded reports whether the lane is a band (Low < High).
func (l Lane) Banded() bool { return l.Low > 0 && l.High > l.Low }

// TimeText is the lane's time in words: "41.2 µs", or a band's "23 µs – 92 µs".
func (l Lane) TimeText() string {
	if l.Banded() {
		return units.Duration(l.Low.Seconds()) + " – " + units.Duration(l.High.Seconds())
	}
	return units.Duration(l.Time.Seconds())
}

// inBand reports whether t lies inside band lane b.
func inBand(b Lane, t time.Duration) bool { return b.Banded() && t >= b.Low && t <= b.High }

// Describe says where the lane's time comes from: "measured live", "recorded on …".
func (l Lane) Describe() string { return l.Source.Describe(l.Note) }

// Brief is the lane's origin in a few words (Source.Brief): a model lane's assumptions stay behind
// the badge.
func (l Lane) Brief() string { return l.Source.Brief(l.Note) }

// ok reports whether the lane finished with a usable time.
func (l Lane) ok() bool { return l.Err == nil && l.Time > 0 }

// Winner returns the index of the fastest lane that finished; ok is false when none did.
func Winner(lanes []Lane) (i int, ok bool) {
	i = -1
	for j, l := range lanes {
		if l.ok() && (i < 0 || l.Time < lanes[i].Time) {
			i = j
		}
	}
	return i, i >= 0
}

// Speedup returns how many times faster the winner is than the runner-up (the next fastest lane
// that finished), and the runner-up's index; ok is false with fewer than two finished lanes.
func Speedup(lanes []Lane) (factor float64, runnerUp int, ok bool) {
	w, found := Winner(lanes)
	if !found {
		return 0, -1, false
	}
	runnerUp = -1
	for j, l := range lanes {
		if j != w && l.ok() && (runnerUp < 0 || l.Time < lanes[runnerUp].Time) {
			runnerUp = j
		}
	}
	if runnerUp < 0 {
		return 0, -1, false
	}
	return float64(lanes[runnerUp].Time) / float64(lanes[w].Time), runnerUp, true
}

// RaceSummary says who won, in one line: "xla:cuda (recorded on NVIDIA H200, 2026-11-30) wins:
// 810 µs vs 12.3 ms for xla:cpu (measured live), 15.2× faster".
func RaceSummary(lanes []Lane) string {
	w, ok := Winner(lanes)
	if !ok {
		if len(lanes) == 0 {
			return "no lanes ran"
		}
		var why []string
		for _, l := range lanes {
			if l.Err != nil {
				why = append(why, l.Device+": "+l.Err.Error())
			}
		}
		return "no device finished (" + strings.Join(why, "; ") + ")"
	}
	win := lanes[w]
	f, r, ok := Speedup(lanes)
	if !ok {
		return fmt.Sprintf("only %s (%s) finished: %s", win.Device, win.Brief(), win.TimeText())
	}
	ru := lanes[r]
	if band, other := win, ru; inBand(band, other.Time) || inBand(other, band.Time) {
		if !band.Banded() {
			band, other = other, band
		}
		return fmt.Sprintf("too close to call: %s (%s) takes %s, inside the band of %s (%s): %s",
			other.Device, other.Brief(), other.TimeText(), band.Device, band.Brief(), band.TimeText())
	}
	if win.Banded() || ru.Banded() {
		return fmt.Sprintf("%s (%s) wins: %s vs %s for %s (%s), %s× faster than the band's %s end",
			win.Device, win.Brief(), win.TimeText(), ru.TimeText(), ru.Device, ru.Brief(),
			units.Sig3(bandFactor(win, ru)), map[bool]string{true: "near", false: "far"}[ru.Banded()])
	}
	return fmt.Sprintf("%s (%s) wins: %s vs %s for %s (%s), %s× faster",
		win.Device, win.Brief(), units.Duration(win.Time.Seconds()), units.Duration(ru.Time.Seconds()),
		ru.Device, ru.Brief(), units.Sig3(f))
}

// RaceBars draws the race as horizontal bars, one per lane, top to bottom in the given order:
// bar length is the time taken (shorter wins), each bar labeled with its time, recorded lanes
// drawn lighter with a dashed outline, failed lanes marked "failed". The winner is named under
// the chart.
func RaceBars(title string, lanes []Lane) (*plot.Plot, error) {
	if len(lanes) == 0 {
		return nil, fmt.Errorf("%w in %q: no lanes", ErrNoData, title)
	}
	longest := 0.0
	for _, l := range lanes {
		if err := checkOrigin(title, fmt.Sprintf("lane %q", l.Device), l.Source); err != nil {
			return nil, err
		}
		if l.Err == nil && l.Time < 0 {
			return nil, fmt.Errorf("charts: %q: lane %q has a negative time %v", title, l.Device, l.Time)
		}
		if l.ok() {
			longest = math.Max(longest, math.Max(l.Time.Seconds(), l.High.Seconds()))
		}
	}
	scale, unit := timeUnit(longest)
	p := New(title, "time per step ["+unit+"]", "")
	n := len(lanes)
	names := make([]string, n)
	for i, l := range lanes {
		row := n - 1 - i // first lane on top
		names[row] = l.Device
		text := "failed: " + errText(l.Err)
		v := 0.0
		if l.ok() {
			v = l.Time.Seconds() / scale
			text = l.TimeText()
		}
		if v > 0 && l.Banded() {
			lo, hi := l.Low.Seconds()/scale, l.High.Seconds()/scale
			h := 0.28
			y := float64(row)
			poly, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: y - h}, {X: hi, Y: y - h}, {X: hi, Y: y + h}, {X: lo, Y: y + h}})
			if err != nil {
				return nil, fmt.Errorf("charts: %q: %w", title, err)
			}
			poly.Color = bandFill(ColorOf(i))
			poly.LineStyle = lineStyle(i, Model)
			poly.LineStyle.Width = vg.Points(1.2)
			p.Add(poly)
			p.Add(label(hi, y, text+"  ("+l.Brief()+")", Ink, vg.Points(5), 0))
			continue
		}
		if v > 0 {
			bc, err := plotter.NewBarChart(plotter.Values{v}, vg.Points(math.Min(34, 180/float64(n))))
			if err != nil {
				return nil, fmt.Errorf("charts: %q: %w", title, err)
			}
			bc.Horizontal = true
			bc.XMin = float64(row)
			bc.Color = ColorOf(i)
			bc.LineStyle.Width = 0
			if l.Source != Live {
				bc.Color = lighten(ColorOf(i))
				bc.LineStyle = lineStyle(i, l.Source)
				bc.LineStyle.Width = vg.Points(1.2)
			}
			p.Add(bc)
		}
		p.Add(label(v, float64(row), text+"  ("+l.Brief()+")", Ink, vg.Points(5), 0))
	}
	p.NominalY(names...)
	p.X.Min = 0
	if longest > 0 {
		// Room for the labels right of the longest bar.
		p.X.Max = longest / scale * 1.9
	} else {
		p.X.Max = 1
	}
	if w, ok := Winner(lanes); ok {
		text := "winner: " + lanes[w].Device
		if f, r, ok := Speedup(lanes); ok {
			text += fmt.Sprintf(", %s× faster than %s", units.Sig3(f), lanes[r].Device)
		}
		AddLegend(p, text)
	}
	for _, l := range lanes {
		From(p, l.Source.Origin(l.Note))
	}
	return p, nil
}

// bandFactor is how many times faster win is than ru, taken at the band's end nearest the other
// lane (the cautious factor).
func bandFactor(win, ru Lane) float64 {
	w, r := win.Time, ru.Time
	if win.Banded() {
		w = win.High
	}
	if ru.Banded() {
		r = ru.Low
	}
	return float64(r) / float64(w)
}

// timeUnit picks a unit for times up to max seconds: the scale to divide by and its name.
func timeUnit(max float64) (float64, string) {
	switch {
	case max >= 1:
		return 1, "s"
	case max >= 1e-3:
		return 1e-3, "ms"
	case max >= 1e-6:
		return 1e-6, "µs"
	}
	return 1e-9, "ns"
}

func errText(err error) string {
	if err == nil {
		return "no time"
	}
	s := err.Error()
	if len(s) > 60 {
		s = s[:57] + "…"
	}
	return s
}
