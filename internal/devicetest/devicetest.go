// Package devicetest is how tests get a device. A test that needs the XLA CPU plugin skips when it
// is missing — except under `make test`, which sets WHYGPU_REQUIRE_PLUGIN=1: there a missing plugin
// is a failure, so a broken set-up cannot pass by skipping. Devices that may rightly be absent (a
// GPU) are always skipped.
package devicetest

import (
	"os"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// RequireEnv is the variable that turns a missing XLA CPU plugin from a skip into a failure.
const RequireEnv = "WHYGPU_REQUIRE_PLUGIN"

// Required reports whether this run requires the XLA CPU plugin (RequireEnv=1).
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// missing skips or fails t for a missing device: a failure only for the CPU plugin under RequireEnv.
func missing(t testing.TB, name, why string) {
	t.Helper()
	if name == devices.CPU && Required() {
		t.Fatalf("%s is required (%s=1) but not available: %s (PJRT_PLUGIN_LIBRARY_PATH=%q; run make setup)",
			name, RequireEnv, why, os.Getenv("PJRT_PLUGIN_LIBRARY_PATH"))
	}
	t.Skipf("%s not available: %s", name, why)
}

// NeedSetup skips t when a piece of the course's set-up (the venv, the course kernel, the go command)
// is missing — and fails it under RequireEnv, which `make test` sets after running the set-up, so a
// set-up that did not take cannot pass by skipping. what names the piece; fix says how to get it.
func NeedSetup(t testing.TB, what, fix string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s is missing under %s=1 (make test runs the set-up first): %s", what, RequireEnv, fix)
	}
	t.Skipf("%s is missing: %s", what, fix)
}

// NeedCPUPlugin skips t (fails it under RequireEnv) when the XLA CPU plugin is not installed.
func NeedCPUPlugin(t testing.TB) {
	t.Helper()
	if _, ok := devices.FindPlugin("cpu"); !ok {
		missing(t, devices.CPU, "the XLA CPU plugin is not installed")
	}
}

// Open opens a device for a test: it skips when the device is not available here (fails for the
// XLA CPU plugin under RequireEnv) and fails when an available device does not open. name may be a
// config with options ([devices.CPUSplit], [devices.CUDANoTF32]): availability is that of the device
// before the comma, and a config that is available but does not open (a broken option) fails.
func Open(t testing.TB, name string) *devices.Device {
	t.Helper()
	base, _, _ := strings.Cut(name, ",")
	for _, s := range devices.Probe() {
		if s.Name == base && !s.Available {
			missing(t, base, s.Detail)
		}
	}
	d, err := devices.Open(name)
	if err != nil {
		t.Fatalf("opening %s: %v", name, err)
	}
	return d
}

// OpenDevices opens a config that must bring at least n PJRT devices (e.g. [devices.CPUSplit] for
// the data-parallel step) and fails t when it brings fewer: a "devices=" option that stopped working
// must fail the SPMD tests, not skip them.
func OpenDevices(t testing.TB, name string, n int) *devices.Device {
	t.Helper()
	d := Open(t, name)
	if got := d.Backend().NumDevices(); got < n {
		t.Fatalf("%s opened %d device(s), want at least %d: the devices= option did not take", name, got, n)
	}
	return d
}
