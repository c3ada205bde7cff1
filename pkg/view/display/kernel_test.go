package display

import (
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/gpu-course/whygpu/pkg/teach/recall"
	"github.com/gpu-course/whygpu/pkg/view/charts"
)

// fakeKernel plays GoNB's side of the named pipes a cell program talks to (what GoNB's jpyexec
// does): it decodes what the program displays, answers gonbui.Sync, and can send comms values
// to the program as if a browser had. It lets the tests run display's notebook paths, the race's
// handshake included, with the real gonbui and comms packages and no Jupyter.
type fakeKernel struct {
	mu      sync.Mutex
	outputs []protocol.DisplayData // everything displayed, in order
	blocks  map[string]string      // last text/html of each display ID
	comms   []protocol.CommValue   // values the program sent to the front-end
	subs    []string               // addresses the program subscribed to
	back    *gob.Encoder
	backMu  sync.Mutex
	changed chan struct{}
}

var (
	kernelOnce sync.Once
	kernel     *fakeKernel
	kernelErr  error
)

// notebook makes this test process a GoNB cell talking to the fake kernel, until the test ends.
func notebook(t *testing.T) *fakeKernel {
	t.Helper()
	kernelOnce.Do(func() { kernel, kernelErr = startFakeKernel() })
	if kernelErr != nil {
		t.Skip("named pipes unavailable:", kernelErr)
	}
	gonbui.IsNotebook = true
	t.Cleanup(func() { gonbui.IsNotebook = false })
	kernel.mu.Lock()
	kernel.outputs, kernel.blocks, kernel.comms, kernel.subs = nil, map[string]string{}, nil, nil
	kernel.mu.Unlock()
	return kernel
}

func startFakeKernel() (*fakeKernel, error) {
	dir, err := os.MkdirTemp("", "whygpu-display-test")
	if err != nil {
		return nil, err
	}
	toKernel, toProgram := filepath.Join(dir, "gonb_pipe"), filepath.Join(dir, "gonb_pipe_back")
	for _, p := range []string{toKernel, toProgram} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			return nil, err
		}
	}
	os.Setenv(protocol.GONB_PIPE_ENV, toKernel)
	os.Setenv(protocol.GONB_PIPE_BACK_ENV, toProgram)
	k := &fakeKernel{blocks: map[string]string{}, changed: make(chan struct{}, 1)}
	ready := make(chan error, 1)
	go func() {
		r, err := os.Open(toKernel) // waits for the program's gonbui.Open
		if err != nil {
			ready <- err
			return
		}
		w, err := os.OpenFile(toProgram, os.O_WRONLY, 0)
		if err != nil {
			ready <- err
			return
		}
		k.back = gob.NewEncoder(w)
		ready <- nil
		k.serve(gob.NewDecoder(r))
	}()
	gonbui.IsNotebook = true
	err = gonbui.Open()
	gonbui.IsNotebook = false
	if err != nil {
		return nil, err
	}
	return k, <-ready
}

func (k *fakeKernel) serve(dec *gob.Decoder) {
	for {
		var d protocol.DisplayData
		if err := dec.Decode(&d); err != nil {
			return
		}
		if v, ok := d.Data[protocol.MIMECommValue].(protocol.CommValue); ok {
			if v.Address == protocol.GonbuiSyncAddress {
				k.send(protocol.CommValue{Address: protocol.GonbuiSyncAckAddress, Value: v.Value})
				continue
			}
			k.mu.Lock()
			k.comms = append(k.comms, v)
			k.mu.Unlock()
		} else if s, ok := d.Data[protocol.MIMECommSubscribe].(protocol.CommSubscription); ok {
			if !s.Unsubscribe {
				k.mu.Lock()
				k.subs = append(k.subs, s.Address)
				k.mu.Unlock()
			}
		} else {
			k.mu.Lock()
			k.outputs = append(k.outputs, d)
			if d.DisplayID != "" {
				h, _ := d.Data[protocol.MIMETextHTML].(string)
				k.blocks[d.DisplayID] = h
			}
			k.mu.Unlock()
		}
		select {
		case k.changed <- struct{}{}:
		default:
		}
	}
}

// send delivers a value to the program, as GoNB does for a message from the browser.
func (k *fakeKernel) send(v protocol.CommValue) {
	k.backMu.Lock()
	defer k.backMu.Unlock()
	_ = k.back.Encode(&v)
}

// waitFor polls the kernel's state until cond holds (or fails the test after a timeout).
func (k *fakeKernel) waitFor(t *testing.T, what string, cond func(k *fakeKernel) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		k.mu.Lock()
		ok := cond(k)
		k.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-k.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// block returns the last HTML of the display ID with the given prefix.
func (k *fakeKernel) block(prefix string) string {
	for id, h := range k.blocks {
		if strings.HasPrefix(id, prefix) {
			return h
		}
	}
	return ""
}

// fakeRun is a race function whose times are fixed fixtures (a CPU growing with the batch, a flat
// recorded GPU), recording the sizes it was asked for.
type fakeRun struct {
	mu    sync.Mutex
	calls []sizes
}

func (f *fakeRun) run(batch, hidden int) ([]Lane, error) {
	f.mu.Lock()
	f.calls = append(f.calls, sizes{batch, hidden})
	f.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	return []Lane{
		{Device: "xla:cpu", Time: time.Duration(batch) * 50 * time.Microsecond, Source: charts.Live},
		{Device: "xla:cuda", Time: 1500 * time.Microsecond, Source: charts.Recorded, Note: "NVIDIA H200, 2026-11-30"},
	}, nil
}

func (f *fakeRun) asked() []sizes {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]sizes(nil), f.calls...)
}

// Headless: nobody answers the handshake, so Race shows the first race, replaces the sliders by
// a note and returns; what stays in the notebook has no script.
func TestRaceHeadless(t *testing.T) {
	k := notebook(t)
	f := &fakeRun{}
	start := time.Now()
	err := Race(f.run, RaceOptions{Batch: 64, Hidden: 128, Handshake: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("headless race took %v", d)
	}
	if got := f.asked(); len(got) != 1 || got[0] != (sizes{64, 128}) {
		t.Errorf("raced %v, want once at 64×128", got)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if len(k.subs) != 1 || !strings.HasPrefix(k.subs[0], "/whygpu/race/") {
		t.Errorf("subscriptions %v, want the race's address", k.subs)
	}
	bars, controls := k.block("whygpu-race-lanes-"), k.block("whygpu-race-controls-")
	for _, w := range []string{`data-race-state="done"`, `data-race-batch="64"`, `data-race-winner="xla:cuda"`, "3.2 ms", "recorded on NVIDIA H200"} {
		if !strings.Contains(bars, w) {
			t.Errorf("bars lack %q:\n%s", w, bars)
		}
	}
	if !strings.Contains(controls, `data-race-live="no"`) || !strings.Contains(controls, "run the cell there") {
		t.Errorf("controls were not replaced by the headless note: %s", controls)
	}
	for id, h := range k.blocks {
		if strings.Contains(h, "<script") {
			t.Errorf("block %s keeps a script: %.200s", id, h)
		}
	}
	for _, v := range k.comms {
		if strings.HasSuffix(v.Address, "/ack") {
			t.Errorf("acknowledged a browser that never spoke: %+v", v)
		}
	}
}

// Live: the page greets the program, moves a slider, then clicks stop.
func TestRaceLive(t *testing.T) {
	k := notebook(t)
	f := &fakeRun{}
	done := make(chan error, 1)
	go func() {
		done <- Race(f.run, RaceOptions{Batch: 32, Hidden: 256, Handshake: 5 * time.Second, Idle: 20 * time.Second})
	}()

	var addr string
	k.waitFor(t, "the subscription", func(k *fakeKernel) bool {
		if len(k.subs) > 0 {
			addr = k.subs[0]
		}
		return addr != "" && strings.Contains(k.block("whygpu-race-controls-"), "<script")
	})
	k.send(protocol.CommValue{Address: addr, Value: "100:32,256"}) // the page's greeting
	k.waitFor(t, "the acknowledgement", func(k *fakeKernel) bool {
		for _, v := range k.comms {
			if v.Address == addr+"/ack" {
				return true
			}
		}
		return false
	})
	k.send(protocol.CommValue{Address: addr, Value: "101:256,256"}) // a slider move
	k.waitFor(t, "the second race", func(k *fakeKernel) bool {
		b := k.block("whygpu-race-lanes-")
		return strings.Contains(b, `data-race-batch="256"`) && strings.Contains(b, `data-race-state="done"`)
	})
	k.send(protocol.CommValue{Address: addr, Value: "99:512,256"}) // stale: older than the last move
	k.send(protocol.CommValue{Address: addr, Value: "stop"})
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the race did not stop")
	}
	if got := f.asked(); len(got) != 2 || got[0] != (sizes{32, 256}) || got[1] != (sizes{256, 256}) {
		t.Errorf("raced %v, want 32×256 then 256×256", got)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	bars := k.block("whygpu-race-lanes-")
	if !strings.Contains(bars, `data-race-round="2"`) || !strings.Contains(bars, `data-race-winner="xla:cuda"`) {
		t.Errorf("last bars: %s", bars)
	}
	controls := k.block("whygpu-race-controls-")
	if strings.Contains(controls, "<script") || !strings.Contains(controls, "the Stop button was clicked") {
		t.Errorf("final controls: %s", controls)
	}
}

func TestRecallInNotebook(t *testing.T) {
	k := notebook(t)
	deck := &recall.Deck{Lesson: "01-race", Title: "t", Sections: []recall.Section{
		{ID: "a", Title: "Section A", Cards: []recall.Card{{Question: "Q?", Answer: "A."}}},
	}}
	if err := Recall(deck, "a"); err != nil {
		t.Fatal(err)
	}
	if err := Recall(deck, "missing"); err == nil {
		t.Error("a missing section gave no error")
	}
	k.waitFor(t, "two outputs", func(k *fakeKernel) bool { return len(k.outputs) >= 2 })
	k.mu.Lock()
	defer k.mu.Unlock()
	d := k.outputs[0]
	h, _ := d.Data[protocol.MIMETextHTML].(string)
	p, _ := d.Data[protocol.MIMETextPlain].(string)
	if !strings.Contains(h, `data-recall-lesson="01-race"`) || !strings.Contains(p, "Recall check — Section A") {
		t.Errorf("recall output: html %.120q… text %q", h, p)
	}
	if e, _ := k.outputs[1].Data[protocol.MIMETextHTML].(string); !strings.Contains(e, "whygpu-error") {
		t.Errorf("missing section not shown as an error: %q", e)
	}
}

func TestChartIsSVG(t *testing.T) {
	k := notebook(t)
	err := Plot(charts.Bars("chart", "value [units]", []charts.Bar{{Label: "a", Value: 1, Source: charts.Live}}))
	if err != nil {
		t.Fatal(err)
	}
	Plot(nil, fmt.Errorf("no data"))
	k.waitFor(t, "three outputs", func(k *fakeKernel) bool { return len(k.outputs) >= 3 })
	k.mu.Lock()
	defer k.mu.Unlock()
	// The chart's origin badges come first, as their own HTML output, then the chart as an image.
	if b, _ := k.outputs[0].Data[protocol.MIMETextHTML].(string); !strings.Contains(b, `class="whygpu-badge" data-origin="live"`) {
		t.Errorf("no live badge above the chart: %q", b)
	}
	svg, _ := k.outputs[1].Data[protocol.MIMEImageSVG].(string)
	if !strings.Contains(svg, "<svg") || k.outputs[1].Data[protocol.MIMETextHTML] != nil {
		t.Errorf("chart output has MIME types %v", keys(k.outputs[1].Data))
	}
	if e, _ := k.outputs[2].Data[protocol.MIMETextHTML].(string); !strings.Contains(e, "whygpu-error") || !strings.Contains(e, "no data") {
		t.Errorf("chart error output: %q", e)
	}
}

func keys(m map[protocol.MIMEType]any) []protocol.MIMEType {
	var out []protocol.MIMEType
	for k := range m {
		out = append(out, k)
	}
	return out
}
