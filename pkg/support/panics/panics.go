// Package panics turns a panic into an error, the one way the course does it. GoMLX reports a bad
// graph (wrong shapes, an unsupported dtype) and XLA an out-of-memory by panicking; the course's
// code returns those as errors, never as a crash, by deferring Catch:
//
//	func Run(dev *devices.Device, w Workload) (r Result, err error) {
//		defer panics.Catch(&err, "measure: %s on %s", w, dev.Name)
//		…
//	}
//
// (GoMLX's own exceptions.Try needs the body in a closure and wraps runtime errors in a second
// message; a deferred Catch keeps the function as it reads and the message as the course words it.)
package panics

import "fmt"

// Catch, deferred, recovers a panic of the function that deferred it and sets *err to what (a
// format with args, e.g. "measure: %s on %s"), a colon and the panic's value; an empty what gives the
// value alone. A panic with an error keeps it wrapped (errors.Is sees it). Without a panic it does
// nothing. It must be deferred directly (defer panics.Catch(&err, …)), as recover requires.
func Catch(err *error, what string, args ...any) {
	p := recover()
	if p == nil {
		return
	}
	*err = fromPanic(p, fmt.Sprintf(what, args...))
}

func fromPanic(p any, what string) error {
	verb := "%v"
	if _, ok := p.(error); ok {
		verb = "%w"
	}
	if what == "" {
		return fmt.Errorf(verb, p)
	}
	return fmt.Errorf("%s: "+verb, what, p)
}
