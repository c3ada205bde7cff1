package hlo

import (
	"errors"
	"os"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// CompiledKernels compiles a shape once: a second ask is answered from this process, and a new
// process (an emptied map here) reads the kernels kept on disk instead of compiling again.
func TestCompiledKernelsAreKept(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	text, err := os.ReadFile("testdata/mlp512x64.cpu_after_optimizations.txt")
	if err != nil {
		t.Fatal(err)
	}
	compiles := 0
	compile := func(*devices.Device) (string, error) { compiles++; return string(text), nil }
	first, err := CompiledKernels("test mlp 512x64", compile)
	if err != nil || len(first) == 0 {
		t.Fatalf("CompiledKernels = %d kernels, %v", len(first), err)
	}
	want, _ := KernelsOf(string(text))
	if len(first) != len(want) {
		t.Errorf("%d kernels, KernelsOf reads %d", len(first), len(want))
	}
	if again, err := CompiledKernels("test mlp 512x64", compile); err != nil || len(again) != len(first) || compiles != 1 {
		t.Errorf("second ask: %d kernels, %v, after %d compiles; want the first answer without compiling", len(again), err, compiles)
	}
	countMu.Lock()
	clear(counts)
	countMu.Unlock()
	kept, err := CompiledKernels("test mlp 512x64", compile)
	if err != nil || compiles != 1 || len(kept) != len(first) {
		t.Fatalf("after clearing the in-process cache: %d kernels, %v, %d compiles; want the kept kernels", len(kept), err, compiles)
	}
	for i := range kept {
		if kept[i].Name != first[i].Name || kept[i].FLOPs != first[i].FLOPs || len(kept[i].Dots) != len(first[i].Dots) {
			t.Errorf("kernel %d kept as %+v, compiled as %+v", i, kept[i], first[i])
		}
	}
	if _, err := CompiledKernels("a failing shape", func(*devices.Device) (string, error) { return "", errors.New("boom") }); err == nil {
		t.Error("a failed compile must be an error")
	}
}
