// Package displaytest plays GoNB's side of a notebook cell for tests of what a cell shows: the
// display package's own tests and widgets built on its widget API (lessons/race/raceview), which
// may not import GoNB themselves.
package displaytest

import (
	"encoding/gob"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// Kernel plays GoNB's side of the named pipes a cell program talks to (what GoNB's jpyexec does):
// it decodes what the program displays, answers gonbui.Sync, and can send comms values to the
// program as if a browser had. It lets tests run notebook paths, a widget's handshake included,
// with the real gonbui and comms packages and no Jupyter.
type Kernel struct {
	mu      sync.Mutex
	outputs []protocol.DisplayData // everything displayed, in order
	blocks  map[string]string      // last text/html of each display ID
	sent    []string               // addresses of the values the program sent to the front-end
	subs    []string               // addresses the program subscribed to
	back    *gob.Encoder
	backMu  sync.Mutex
	changed chan struct{}
}

var (
	kernelOnce sync.Once
	kernel     *Kernel
	kernelErr  error
)

// Notebook makes this test process a GoNB cell talking to the fake kernel, until the test ends,
// and forgets what earlier tests displayed. It skips the test where named pipes are unavailable.
func Notebook(t *testing.T) *Kernel {
	t.Helper()
	kernelOnce.Do(func() { kernel, kernelErr = start() })
	if kernelErr != nil {
		t.Skip("named pipes unavailable:", kernelErr)
	}
	gonbui.IsNotebook = true
	t.Cleanup(func() { gonbui.IsNotebook = false })
	kernel.mu.Lock()
	kernel.outputs, kernel.blocks, kernel.sent, kernel.subs = nil, map[string]string{}, nil, nil
	kernel.mu.Unlock()
	return kernel
}

func start() (*Kernel, error) {
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
	k := &Kernel{blocks: map[string]string{}, changed: make(chan struct{}, 1)}
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

func (k *Kernel) serve(dec *gob.Decoder) {
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
			k.sent = append(k.sent, v.Address)
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

func (k *Kernel) send(v protocol.CommValue) {
	k.backMu.Lock()
	defer k.backMu.Unlock()
	_ = k.back.Encode(&v)
}

// Send delivers a value to the program at a comms address, as GoNB does for a message from the
// browser.
func (k *Kernel) Send(address string, value any) {
	k.send(protocol.CommValue{Address: address, Value: value})
}

// WaitFor polls until cond holds (or fails the test after 10 s); cond reads the kernel through
// its methods.
func (k *Kernel) WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-k.changed:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// Outputs is everything the program displayed, in order.
func (k *Kernel) Outputs() []protocol.DisplayData {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]protocol.DisplayData(nil), k.outputs...)
}

// Blocks is the last HTML of each display ID.
func (k *Kernel) Blocks() map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	m := make(map[string]string, len(k.blocks))
	for id, h := range k.blocks {
		m[id] = h
	}
	return m
}

// Block is the last HTML of the display ID with the given prefix ("" if none).
func (k *Kernel) Block(prefix string) string {
	for id, h := range k.Blocks() {
		if strings.HasPrefix(id, prefix) {
			return h
		}
	}
	return ""
}

// Sent is the comms addresses the program sent values to, in order (gonbui.Sync's excluded).
func (k *Kernel) Sent() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.sent...)
}

// Subscriptions is the comms addresses the program subscribed to, in order.
func (k *Kernel) Subscriptions() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.subs...)
}
