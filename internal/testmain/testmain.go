// Package testmain is the TestMain of packages whose tests load the XLA PJRT plugin. It imports
// nothing of the course, so every package can use it (pkg/hw/devices included, which
// internal/devicetest imports).
package testmain

import (
	"os"
	"syscall"
	"testing"
)

// Main runs the tests and exits with their status.
//
// Under the race detector a plain exit aborts with "free(): double free detected" after PASS: the
// race runtime's exit (runtime.racefini → __tsan_fini) leaves through libc's exit(), which runs the
// plugin's C++ static destructors and atexit handlers while the plugin's thread pool and client are
// still alive, and one of them frees twice. A normal Go exit is the exit_group system call, which runs
// none of them — which is why only -race runs abort. So under -race, Main ends the process with
// exit_group itself, skipping racefini. Nothing is lost: a race found during a test already failed
// that test (the testing package counts the race reports of each test), so m.Run's status says so.
func Main(m *testing.M) { Exit(m.Run()) }

// Exit ends a test binary with code, the way [Main] does: for a TestMain that does more than run the
// tests (set-up before, clean-up after).
func Exit(code int) {
	if raceEnabled {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, uintptr(code), 0, 0) // not os.Exit: see above
	}
	os.Exit(code)
}
