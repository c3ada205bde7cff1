package raceview

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/view/charts"
	"github.com/gpu-course/whygpu/pkg/view/display/displaytest"
)

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
	k := displaytest.Notebook(t)
	f := &fakeRun{}
	start := time.Now()
	err := Race(f.run, Options{Batch: 64, Hidden: 128, Handshake: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("headless race took %v", d)
	}
	if got := f.asked(); len(got) != 1 || got[0] != (sizes{64, 128}) {
		t.Errorf("raced %v, want once at 64×128", got)
	}
	if subs := k.Subscriptions(); len(subs) != 1 || !strings.HasPrefix(subs[0], "/whygpu/race/") {
		t.Errorf("subscriptions %v, want the race's address", subs)
	}
	bars, controls := k.Block("whygpu-race-lanes-"), k.Block("whygpu-race-controls-")
	for _, w := range []string{`data-race-state="done"`, `data-race-batch="64"`, `data-race-winner="xla:cuda"`, "3.2 ms", "recorded on NVIDIA H200"} {
		if !strings.Contains(bars, w) {
			t.Errorf("bars lack %q:\n%s", w, bars)
		}
	}
	if !strings.Contains(controls, `data-race-live="no"`) || !strings.Contains(controls, "run the cell there") {
		t.Errorf("controls were not replaced by the headless note: %s", controls)
	}
	for id, h := range k.Blocks() {
		if strings.Contains(h, "<script") {
			t.Errorf("block %s keeps a script: %.200s", id, h)
		}
	}
	for _, a := range k.Sent() {
		if strings.HasSuffix(a, "/ack") {
			t.Errorf("acknowledged a browser that never spoke: %s", a)
		}
	}
}

// Live: the page greets the program, moves a slider, then clicks stop.
func TestRaceLive(t *testing.T) {
	k := displaytest.Notebook(t)
	f := &fakeRun{}
	done := make(chan error, 1)
	go func() {
		done <- Race(f.run, Options{Batch: 32, Hidden: 256, Handshake: 5 * time.Second, Idle: 20 * time.Second})
	}()

	var addr string
	k.WaitFor(t, "the subscription", func() bool {
		if subs := k.Subscriptions(); len(subs) > 0 {
			addr = subs[0]
		}
		return addr != "" && strings.Contains(k.Block("whygpu-race-controls-"), "<script")
	})
	k.Send(addr, "100:32,256") // the page's greeting
	k.WaitFor(t, "the acknowledgement", func() bool { return slices.Contains(k.Sent(), addr+"/ack") })
	k.Send(addr, "101:256,256") // a slider move
	k.WaitFor(t, "the second race", func() bool {
		b := k.Block("whygpu-race-lanes-")
		return strings.Contains(b, `data-race-batch="256"`) && strings.Contains(b, `data-race-state="done"`)
	})
	k.Send(addr, "99:512,256") // stale: older than the last move
	k.Send(addr, "stop")
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
	bars := k.Block("whygpu-race-lanes-")
	if !strings.Contains(bars, `data-race-round="2"`) || !strings.Contains(bars, `data-race-winner="xla:cuda"`) {
		t.Errorf("last bars: %s", bars)
	}
	controls := k.Block("whygpu-race-controls-")
	if strings.Contains(controls, "<script") || !strings.Contains(controls, "the Stop button was clicked") {
		t.Errorf("final controls: %s", controls)
	}
}
