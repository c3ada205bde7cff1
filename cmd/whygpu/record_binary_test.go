package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// TestPrebuiltBinaryRecordsWithoutGoOrCheckout builds whygpu the way it is carried to a GPU machine
// (-trimpath, so no path of this checkout is baked in), then runs `record` from an empty directory
// with no Go on PATH and no WHYGPU_ROOT: only the PJRT plugin path and -out.
func TestPrebuiltBinaryRecordsWithoutGoOrCheckout(t *testing.T) {
	needCPUPlugin(t)
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		devicetest.NeedSetup(t, "the go command", "install Go 1.26 and put it on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin", "whygpu")
	build := exec.Command(goBin, "build", "-trimpath", "-tags", "whygpufake", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := filepath.Join(dir, "elsewhere")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PATH=/usr/bin:/bin", // no Go
		"HOME=" + work,
		"PJRT_PLUGIN_LIBRARY_PATH=" + os.Getenv("PJRT_PLUGIN_LIBRARY_PATH"),
		"GOMLX_NO_AUTO_INSTALL=1",
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("record", "-only", "98-binary"); err == nil || !strings.Contains(out, "pass -out") {
		t.Errorf("without a checkout, record must ask for -out; got err=%v\n%s", err, out)
	}
	ref := filepath.Join(work, "ref")
	out, err := run("record", "-device", "xla:cpu", "-out", ref, "-only", "98-binary")
	if err != nil {
		t.Fatalf("record: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(ref, "*", "98-binary", "tiny-matmul.json"))
	if len(files) != 1 {
		t.Fatalf("want one result file under %s, got %v\n%s", ref, files, out)
	}
	rs, err := results.Load(files[0])
	if err != nil || len(rs) != 1 || rs[0].Provenance.Device != "xla:cpu" || rs[0].Provenance.GoMLX == "" {
		t.Fatalf("results: %+v, %v", rs, err)
	}
}
