package hlo

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/gomlx/gomlx/core/graph"
)

// Buffer kinds of a Timeline, from the allocation XLA's buffer assignment put each value in.
const (
	KindArgument  = "argument"  // an input of the executable (a parameter allocation)
	KindOutput    = "output"    // written by the program and returned (maybe-live-out)
	KindTemporary = "temporary" // scratch inside the program's one preallocated temporary block
	KindConstant  = "constant"  // a literal baked into the executable
)

// Buffer is one value XLA keeps in memory during an execution: the instruction that defines it,
// its shape and size, and the positions of the schedule where it is live (Start…End inclusive).
type Buffer struct {
	Name       string // defining HLO instruction, e.g. "select_exponential_fusion.1"
	Shape      string // e.g. "f32[16,4,64,64]"
	Bytes      int64
	Start, End int
	Kind       string // KindArgument, KindOutput, KindTemporary or KindConstant
}

// Timeline is the memory of one execution over its program order, read from XLA's own dumps of
// the compiled executable: the schedule and each buffer's live range (HloLiveRange, the
// "*-live-range.txt" dump) and each value's size and allocation (BufferAssignment, the
// "*-buffer-assignment.txt" dump). Live[i] is the bytes of every buffer live at position i of
// the schedule, split by kind; its largest value is the step's peak.
type Timeline struct {
	Schedule []string // instruction names in the order XLA runs them (position = index)
	Buffers  []Buffer // every buffer with a live range and a size
	Live     []Live   // bytes live at each position
	PeakAt   int      // the position of the largest total
	// XLAPeak is XLA's own peak figure from the same dump ("Stack trace breakdown for peak usage");
	// 0 if the dump has none.
	XLAPeak int64
}

// Live is the bytes live at one position of the schedule, by kind.
type Live struct{ Arguments, Outputs, Temporaries, Constants int64 }

// Total is the sum of the kinds.
func (l Live) Total() int64 { return l.Arguments + l.Outputs + l.Temporaries + l.Constants }

// Peak is the largest total of Live.
func (t Timeline) Peak() int64 {
	if len(t.Live) == 0 {
		return 0
	}
	return t.Live[t.PeakAt].Total()
}

// Body is the first position of the schedule that is not a parameter: XLA lists the program's
// inputs first, one position each, before anything runs.
func (t Timeline) Body() int {
	args := map[string]bool{}
	for _, b := range t.Buffers {
		if b.Kind == KindArgument {
			args[b.Name] = true
		}
	}
	for i, name := range t.Schedule {
		if !args[name] {
			return i
		}
	}
	return 0
}

// LiveAt returns the buffers live at position i, largest first (at most n; n ≤ 0: all).
func (t Timeline) LiveAt(i, n int) []Buffer {
	var out []Buffer
	for _, b := range t.Buffers {
		if b.Start <= i && i <= b.End {
			out = append(out, b)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Bytes > out[b].Bytes })
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

var (
	liveHeader = regexp.MustCompile(`^HloLiveRange \(max (\d+)\):`)
	seqLine    = regexp.MustCompile(`^\s+(\d+):(\S+)$`)
	rangeLine  = regexp.MustCompile(`^\s+([^\s{]+)\{[^}]*\}:(\d+)-(\d+)$`)
	peakLine   = regexp.MustCompile(`Stack trace breakdown for peak usage: ([\d ]+) bytes`)
	allocLine  = regexp.MustCompile(`^allocation (\d+): size \d+, (.*)$`)
	valueLine  = regexp.MustCompile(`^\s*value: <\d+ ([^\s>]+)[^>]*> \(size=(\d+),offset=(\d+)\): (\S+?)(\{[\d,]*\})?$`)
)

// ParseTimeline builds the Timeline of an executable from the text of XLA's live-range dump and
// of its buffer-assignment dump. A value whose allocation is thread-local (inside a fused or
// called computation) or that has no live range in the entry schedule is left out.
func ParseTimeline(liveRange, bufferAssignment string) (Timeline, error) {
	var t Timeline
	type span struct{ start, end int }
	ranges := map[string]span{}
	last := -1
	section := ""
	for _, line := range strings.Split(liveRange, "\n") {
		if m := liveHeader.FindStringSubmatch(line); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return Timeline{}, fmt.Errorf("hlo: live-range dump header %q: %w", line, err)
			}
			last = n
			continue
		}
		switch strings.TrimSpace(line) {
		case "InstructionSequence:":
			section = "seq"
			continue
		case "BufferLiveRange:":
			section = "ranges"
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "Live ranges at") {
			section = ""
		}
		if m := peakLine.FindStringSubmatch(line); m != nil {
			peak, err := strconv.ParseInt(strings.ReplaceAll(m[1], " ", ""), 10, 64)
			if err != nil {
				return Timeline{}, fmt.Errorf("hlo: live-range dump's peak %q: %w", line, err)
			}
			t.XLAPeak = peak
		}
		switch section {
		case "seq":
			if m := seqLine.FindStringSubmatch(line); m != nil {
				t.Schedule = append(t.Schedule, m[2])
			}
		case "ranges":
			if m := rangeLine.FindStringSubmatch(line); m != nil {
				s, err := strconv.Atoi(m[2])
				if err != nil {
					return Timeline{}, fmt.Errorf("hlo: live range %q: %w", line, err)
				}
				e, err := strconv.Atoi(m[3])
				if err != nil {
					return Timeline{}, fmt.Errorf("hlo: live range %q: %w", line, err)
				}
				if old, ok := ranges[m[1]]; ok { // several values of one instruction (a tuple): widest span
					s, e = min(s, old.start), max(e, old.end)
				}
				ranges[m[1]] = span{s, e}
			}
		}
	}
	if last < 0 || len(t.Schedule) == 0 || len(ranges) == 0 {
		return Timeline{}, fmt.Errorf("hlo: not an XLA live-range dump (no HloLiveRange schedule and ranges)")
	}
	kind := ""
	seen := map[string]bool{}
	for _, line := range strings.Split(bufferAssignment, "\n") {
		if m := allocLine.FindStringSubmatch(line); m != nil {
			switch flags := m[2]; {
			case strings.Contains(flags, "thread-local"):
				kind = ""
			case strings.Contains(flags, "parameter"):
				kind = KindArgument
			case strings.Contains(flags, "maybe-live-out"):
				kind = KindOutput
			case strings.Contains(flags, "constant"):
				kind = KindConstant
			default:
				kind = KindTemporary
			}
			continue
		}
		m := valueLine.FindStringSubmatch(line)
		if m == nil || kind == "" || seen[m[1]] {
			continue
		}
		r, ok := ranges[m[1]]
		if !ok {
			continue
		}
		seen[m[1]] = true
		size, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			return Timeline{}, fmt.Errorf("hlo: buffer assignment value %q: %w", line, err)
		}
		t.Buffers = append(t.Buffers, Buffer{Name: m[1], Shape: m[4], Bytes: size, Start: r.start, End: r.end, Kind: kind})
	}
	if len(t.Buffers) == 0 {
		return Timeline{}, fmt.Errorf("hlo: the buffer assignment names none of the live ranges' buffers")
	}
	// Each value counts at every position of its live range, as XLA's own "live ranges at the
	// peak" listing counts them; where XLA updates a buffer in place, the old and the new value
	// touch at one position and both count there (a few KiB above XLA's peak on the course's GPT).
	t.Live = make([]Live, last+1)
	for _, b := range t.Buffers {
		for i := b.Start; i <= b.End && i <= last; i++ {
			l := &t.Live[i]
			switch b.Kind {
			case KindArgument:
				l.Arguments += b.Bytes
			case KindOutput:
				l.Outputs += b.Bytes
			case KindTemporary:
				l.Temporaries += b.Bytes
			case KindConstant:
				l.Constants += b.Bytes
			}
		}
	}
	for i, l := range t.Live {
		if l.Total() > t.Live[t.PeakAt].Total() {
			t.PeakAt = i
		}
	}
	return t, nil
}

// TimelineOf reads the memory timeline of a compiled graph whose executable was named with
// DumpName (XLA dumps its live ranges and buffer assignment with the optimized HLO); the dump files
// are removed once read, so call it instead of, not after, Of.
func TimelineOf(g *graph.Graph) (Timeline, error) {
	if g == nil {
		return Timeline{}, fmt.Errorf("hlo: nil graph")
	}
	if !strings.HasPrefix(g.Name(), DumpPrefix) {
		return Timeline{}, fmt.Errorf("hlo: graph %s was not named with DumpName: XLA dumped no live ranges for it", g.Name())
	}
	const lr, ba = "after_optimizations-live-range.txt", "after_optimizations-buffer-assignment.txt"
	files, err := readDumpFiles(g.Name(), lr, ba)
	if err != nil {
		return Timeline{}, err
	}
	return ParseTimeline(files[lr], files[ba])
}
