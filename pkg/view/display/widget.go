package display

import (
	"os"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
)

// What a live widget needs from GoNB, for Panel here and for widgets outside pkg/view (lesson 01's
// race, lessons/race/raceview), which may not import GoNB themselves: whether it can listen, ids,
// the page's messages through GoNB's comms and the answer, and blocks redrawn in place.

// WidgetsEnv is the environment variable that turns live widgets off: with WHYGPU_WIDGETS=off, a
// widget shows its starting values once without waiting for a browser (headless test runs set it
// to skip the handshake wait).
const WidgetsEnv = "WHYGPU_WIDGETS"

// Widgets reports whether a widget in a notebook cell can listen to its page: GoNB's pipes are
// open and WHYGPU_WIDGETS is not "off". Call it after InNotebook.
func Widgets() bool { return os.Getenv(WidgetsEnv) != "off" && gonbui.Error() == nil }

// NewID returns an id unique in this kernel, for a widget's display blocks and comms address.
func NewID() string { return gonbui.UniqueId() }

// Listen subscribes to a comms address: what the page sends there arrives on msgs until stop is
// called (call it when the widget returns). The subscription itself is never cancelled:
// gonbui/comms (v0.11.4) keeps a lock held when a value arrives for an address nobody listens to
// any more, which would wedge the cell's later comms; GoNB drops it when the cell ends.
// Subscribing also makes GoNB connect the page, if there is one.
func Listen(address string) (msgs <-chan string, stop func()) {
	ch := make(chan string, 64)
	stopped := make(chan struct{})
	comms.Subscribe(address, func(_ string, v string) {
		select {
		case ch <- v:
		case <-stopped:
		}
	})
	return ch, func() { close(stopped) }
}

// Ack answers the page's script listening at address: it sends 1 to address + "/ack" (the
// widgets' scripts show they are live, and stop repeating their greeting, when it arrives).
func Ack(address string) { comms.Send(address+"/ack", 1) }

// Update shows htmlText (plain for text views and headless runs) in the display block id, in
// place of what the block showed.
func Update(id, htmlText, plain string) { send(id, htmlText, plain) }

// Flush waits until GoNB has taken every output sent so far (a cell may end right after).
func Flush() { gonbui.Sync() }
