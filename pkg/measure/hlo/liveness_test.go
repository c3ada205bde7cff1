package hlo

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// The fixture is XLA's dump of lesson 09's GPT training step (L=2, d=64, 4 heads, s=64, batch 16,
// vocabulary 96, fp32 Adam) compiled on xla:cpu with go-xla v0.4.1's plugin; its compiled memory
// statistics were arguments 1 354 800 B and temporaries 20 316 228 B (the one preallocated-temp
// allocation of the buffer assignment).
func TestParseTimeline(t *testing.T) {
	lr, ba := gptStepDump(t)
	tl, err := ParseTimeline(string(lr), string(ba))
	if err != nil {
		t.Fatal(err)
	}
	if len(tl.Schedule)+1 != len(tl.Live) { // positions 0…max, max = one past the last instruction
		t.Errorf("schedule of %d positions, %d live totals", len(tl.Schedule), len(tl.Live))
	}
	if tl.XLAPeak != 21818964 {
		t.Errorf("XLA's peak read as %d, want 21818964", tl.XLAPeak)
	}
	// At XLA's peak position (220) the sum of live buffers is XLA's peak exactly; the curve's own
	// maximum is within 0.1 % of it (an in-place update counted twice where two values touch).
	if got := tl.Live[220].Total(); got != tl.XLAPeak {
		t.Errorf("at 220: %d B live, XLA says %d B", got, tl.XLAPeak)
	}
	if d := tl.Peak() - tl.XLAPeak; d < 0 || float64(d) > 1e-3*float64(tl.XLAPeak) {
		t.Errorf("peak %d B at %d, XLA's %d B", tl.Peak(), tl.PeakAt, tl.XLAPeak)
	}
	var maxTemp int64
	for _, l := range tl.Live {
		maxTemp = max(maxTemp, l.Temporaries)
	}
	if maxTemp > 20316228 {
		t.Errorf("temporaries live at once %d B exceed the preallocated block 20316228 B", maxTemp)
	}
	top := tl.LiveAt(tl.PeakAt, 3)
	if len(top) != 3 || top[0].Bytes != 1<<20 || top[0].Shape == "" {
		t.Errorf("largest buffers at the peak: %+v", top)
	}
	if b := tl.Body(); b != 109 { // 109 parameters (Arg_0 … Arg_108)
		t.Errorf("the body starts at %d, want 109", b)
	}
	if _, err := ParseTimeline("not a dump", string(ba)); err == nil {
		t.Error("a text without a schedule was parsed")
	}
}

// A number in the dump that does not parse (here: past int64) is an error naming the line, never a
// zero live range or a zero peak.
func TestParseTimelineRefusesABadNumber(t *testing.T) {
	lr, ba := gptStepDump(t)
	huge := "99999999999999999999"
	for name, tc := range map[string][2]string{
		"header": {strings.Replace(string(lr), "HloLiveRange (max 442)", "HloLiveRange (max "+huge+")", 1), string(ba)},
		"peak":   {strings.Replace(string(lr), "peak usage: 21 818 964 bytes", "peak usage: "+huge+" bytes", 1), string(ba)},
		"range":  {regexp.MustCompile(`(?m)^(\s+[^\s{]+\{[^}]*\}:)\d+-`).ReplaceAllString(string(lr), "${1}"+huge+"-"), string(ba)},
		"size":   {string(lr), regexp.MustCompile(`\(size=\d+,`).ReplaceAllString(string(ba), "(size="+huge+",")},
	} {
		if _, err := ParseTimeline(tc[0], tc[1]); err == nil || !strings.Contains(err.Error(), huge) {
			t.Errorf("%s: %v, want an error naming %s", name, err, huge)
		}
	}
}

// gptStepDump reads the fixture's two dump files: the live ranges and the buffer assignment.
func gptStepDump(t *testing.T) (liveRange, bufferAssignment []byte) {
	t.Helper()
	lr, err := os.ReadFile("testdata/gpt_step.live-range.txt")
	if err != nil {
		t.Fatal(err)
	}
	ba, err := os.ReadFile("testdata/gpt_step.buffer-assignment.txt")
	if err != nil {
		t.Fatal(err)
	}
	return lr, ba
}
