package raceview

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/view/charts"
)

func TestRaceDefaults(t *testing.T) {
	tests := []struct {
		name               string
		in                 Options
		batch, hidden      int
		nBatches, nHiddens int
	}{
		{"zero", Options{}, 32, 256, 10, 8},
		{"between stops moves to the nearest", Options{Batch: 100, Hidden: 3000}, 128, 2048, 10, 8},
		{"custom stops", Options{Batches: []int{1, 10, 100}, Hiddens: []int{64}, Batch: 12}, 10, 64, 3, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.in.withDefaults()
			if o.Batch != tc.batch || o.Hidden != tc.hidden || len(o.Batches) != tc.nBatches || len(o.Hiddens) != tc.nHiddens {
				t.Errorf("got batch %d hidden %d stops %v %v", o.Batch, o.Hidden, o.Batches, o.Hiddens)
			}
			if o.Handshake <= 0 || o.Idle <= 0 || o.Lifetime <= 0 || o.Title == "" {
				t.Errorf("defaults missing: %+v", o)
			}
		})
	}
}

func TestParseRaceMsg(t *testing.T) {
	b, h := set([]int{1, 2, 4}), set([]int{16, 32})
	tests := []struct {
		msg  string
		ok   bool
		seq  int
		want sizes
	}{
		{"7:2,32", true, 7, sizes{2, 32}},
		{"1733000000000:4,16", true, 1733000000000, sizes{4, 16}},
		{"7:3,32", false, 0, sizes{}},  // not a stop
		{"7:2,33", false, 0, sizes{}},  // not a stop
		{"2,32", false, 0, sizes{}},    // no sequence
		{"x:2,32", false, 0, sizes{}},  // bad sequence
		{"7:2;32", false, 0, sizes{}},  // bad separator
		{"stop", false, 0, sizes{}},    // handled before parsing
		{"", false, 0, sizes{}},        // empty
		{"7:-1,16", false, 0, sizes{}}, // negative
	}
	for _, tc := range tests {
		seq, at, ok := parseRaceMsg(tc.msg, b, h)
		if ok != tc.ok || seq != tc.seq || at != tc.want {
			t.Errorf("parseRaceMsg(%q) = %d, %v, %v; want %d, %v, %v", tc.msg, seq, at, ok, tc.seq, tc.want, tc.ok)
		}
	}
}

func lanes() []Lane {
	return []Lane{
		{Device: "xla:cpu", Time: 8 * time.Millisecond, Source: charts.Live},
		{Device: "xla:cuda <H200>", Time: 2 * time.Millisecond, Source: charts.Recorded, Note: "NVIDIA H200, 2026-11-30"},
		{Device: "go", Err: errors.New("out of memory")},
	}
}

func TestRaceHTML(t *testing.T) {
	width := regexp.MustCompile(`width:([0-9.]+)%;--c:#[0-9a-f]{6};animation-duration:([0-9.]+)s`)
	tests := []struct {
		name    string
		v       raceView
		want    []string
		notWant []string
		widths  []float64
	}{
		{"done", raceView{title: "one step", batch: 64, hidden: 256, lanes: lanes(), state: "done", round: 3},
			[]string{`data-race-state="done"`, `data-race-batch="64"`, `data-race-hidden="256"`, `data-race-round="3"`,
				`data-race-winner="xla:cuda &lt;H200&gt;"`, `data-race-lane="xla:cpu"`, `data-race-seconds="0.008"`,
				"whygpu-race-recorded", "8 ms", "8000 samples/s", "2 ms", "32000 samples/s", "failed", "out of memory",
				"Winner: xla:cuda &lt;H200&gt; — 4× faster than xla:cpu (recorded on NVIDIA H200, 2026-11-30)",
				"@keyframes whygpu-race-grow", "batch 64 × hidden 256"},
			[]string{"<script", "<H200>"}, []float64{100, 25}},
		{"racing shows the previous bars dimmed", raceView{title: "one step", batch: 128, hidden: 256, lanes: lanes(), state: "racing", round: 4},
			[]string{`data-race-state="racing"`, "racing…", "whygpu-race-stale", `data-race-winner=""`}, []string{"Winner:"}, []float64{100, 25}},
		{"error", raceView{title: "one step", batch: 8, hidden: 16, state: "error", round: 1, err: errors.New("no devices <here>")},
			[]string{`data-race-state="error"`, "whygpu-error", "no devices &lt;here&gt;"}, []string{`class="whygpu-race-lane"`}, nil},
		{"a model winner names its source, its note stays in the lane", raceView{title: "t", batch: 1, hidden: 64, state: "done", round: 1,
			lanes: []Lane{
				{Device: "xla:cpu", Time: 80 * time.Microsecond, Source: charts.Live},
				{Device: "H200 model", Time: 50 * time.Microsecond, Low: 20 * time.Microsecond, High: 80 * time.Microsecond,
					Source: charts.Model, Note: "19 kernels counted on xla:cpu, launches 1–4 µs each"},
			}},
			[]string{"Winner: H200 model", "(datasheet model: the band", "19 kernels counted on xla:cpu"},
			[]string{"Winner: H200 model — 1.6× faster than xla:cpu (datasheet model (19 kernels"}, []float64{100}},
		{"one lane", raceView{title: "t", batch: 1, hidden: 16, lanes: lanes()[:1], state: "done", round: 1},
			[]string{"Winner: xla:cpu<", `data-race-winner="xla:cpu"`}, []string{"faster than"}, []float64{100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := raceHTML(tc.v)
			for _, w := range tc.want {
				if !strings.Contains(h, w) {
					t.Errorf("HTML lacks %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(h, w) {
					t.Errorf("HTML has %q", w)
				}
			}
			// Widths are proportional to time and so are the animation durations: same speed.
			m := width.FindAllStringSubmatch(h, -1)
			if len(m) != len(tc.widths) {
				t.Fatalf("%d bars, want %d", len(m), len(tc.widths))
			}
			for i, w := range tc.widths {
				got, _ := strconv.ParseFloat(m[i][1], 64)
				d, _ := strconv.ParseFloat(m[i][2], 64)
				if got != w || d != raceDuration*w/100 {
					t.Errorf("bar %d: width %v%% in %vs, want %v%% in %vs", i, got, d, w, raceDuration*w/100)
				}
			}
			if strings.Count(h, "<div") != strings.Count(h, "</div>") {
				t.Error("unbalanced divs")
			}
		})
	}
}

func TestControlsHTML(t *testing.T) {
	o := Options{Batch: 64, Hidden: 512}.withDefaults()
	h := controlsHTML("whygpu-race-controls-x", "/whygpu/race/x", o, sizes{64, 512})
	for _, w := range []string{
		`id="whygpu-race-controls-x"`, `data-race-live="connecting"`, `data-race-address="/whygpu/race/x"`,
		`max="9" step="1" value="6" data-race-input="batch"`, `<output data-race-value="batch">64</output>`,
		`max="7" step="1" value="5" data-race-input="hidden"`, `<output data-race-value="hidden">512</output>`,
		`data-race-stop`, `B = [1,2,4,8,16,32,64,128,256,512]`, `H = [16,32,64,128,256,512,1024,2048]`,
		`gonb_comm`, `addr + "/ack"`,
	} {
		if !strings.Contains(h, w) {
			t.Errorf("controls lack %q", w)
		}
	}
	s := staticControlsHTML("done <now>")
	if strings.Contains(s, "<script") || !strings.Contains(s, `data-race-live="no"`) || !strings.Contains(s, "done &lt;now&gt;") {
		t.Errorf("static controls: %s", s)
	}
}

func TestLanesText(t *testing.T) {
	got := lanesText(64, lanes())
	for _, w := range []string{"xla:cpu", "8 ms per step, 8000 samples/s  (measured live)", "go", "failed: out of memory",
		"xla:cuda <H200> (recorded on NVIDIA H200, 2026-11-30) wins: 2 ms vs 8 ms for xla:cpu (measured live), 4× faster"} {
		if !strings.Contains(got, w) {
			t.Errorf("text lacks %q:\n%s", w, got)
		}
	}
}

func TestSafeRace(t *testing.T) {
	tests := []struct {
		name string
		run  Func
		want string
	}{
		{"panic", func(int, int) ([]Lane, error) { panic("boom") }, "boom"},
		{"no lanes", func(int, int) ([]Lane, error) { return nil, nil }, "no lanes"},
		{"error", func(int, int) ([]Lane, error) { return nil, errors.New("no GPU") }, "no GPU"},
	}
	for _, tc := range tests {
		if _, err := safeRace(tc.run, 1, 16); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

// The race's lanes, drawn as HTML: one origin badge per lane (display.BadgesHTML).
func TestRaceBadges(t *testing.T) {
	h := raceHTML(raceView{title: "race", batch: 1, state: "done", round: 1, lanes: []Lane{
		{Device: "xla:cpu", Time: time.Millisecond, Source: charts.Live},
		{Device: "xla:cuda", Time: time.Microsecond, Source: charts.Recorded, Note: "NVIDIA H200, 2026-11-30"}}})
	for _, w := range []string{`data-origin="live"`, `recorded on NVIDIA H200, 2026-11-30</span>`} {
		if !strings.Contains(h, w) {
			t.Errorf("race lacks %s", w)
		}
	}
}
