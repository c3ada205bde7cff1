package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
)

// TestCompareDryRunOnCPU runs the GPU comparison at tiny sizes on xla:cpu against a made-up PyTorch
// report: every row is measured, ratios are computed where PyTorch has a number, and the targets are
// evaluated (whether they pass on a CPU is beside the point).
func TestCompareDryRunOnCPU(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	dir := t.TempDir()
	torch := filepath.Join(dir, "torch.json")
	os.WriteFile(torch, []byte(`{"torch":"test","results":[{"name":"matmul-bf16","tflops":0.001},{"name":"copy-d2d","gbps":1}]}`), 0o644)
	out := filepath.Join(dir, "compare.json")
	err := compare([]string{"-device", "xla:cpu", "-torch", torch, "-out", out,
		"-n", "64", "-ln-rows", "64", "-ln-cols", "64", "-copy-bytes", "65536", "-check-n", "32"})
	if err != nil && !strings.Contains(err.Error(), "target(s) missed") {
		t.Fatal(err)
	}
	var rep CompareReport
	b, rerr := os.ReadFile(out)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 6 {
		t.Errorf("rows = %d, want 6", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		if r.OursRate <= 0 {
			t.Errorf("%s: rate %v", r.Name, r.OursRate)
		}
		if (r.Name == "matmul-bf16" || r.Name == "copy-d2d") && r.Ratio <= 0 {
			t.Errorf("%s: no ratio against PyTorch", r.Name)
		}
	}
	var correctness int
	for _, c := range rep.Checks {
		if strings.Contains(c.What, "relative error") {
			correctness++
			if !c.Pass {
				t.Errorf("correctness check failed: %+v", c)
			}
		}
	}
	if correctness != 3 {
		t.Errorf("correctness checks = %d, want 3", correctness)
	}
}
