package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
)

// TestCompareDryRunOnCPU runs the GPU comparison at tiny sizes on xla:cpu against made-up PyTorch and
// JAX reports: every row is measured, ratios are computed where a peer has a number (not where it
// reported an error), and the targets are evaluated (whether they pass on a CPU is beside the point).
func TestCompareDryRunOnCPU(t *testing.T) {
	devicetest.NeedCPUPlugin(t)
	dir := t.TempDir()
	torch := filepath.Join(dir, "torch.json")
	os.WriteFile(torch, []byte(`{"torch":"test","results":[{"name":"matmul-bf16","tflops":0.001},{"name":"copy-d2d","gbps":1}]}`), 0o644)
	jax := filepath.Join(dir, "jax.json")
	os.WriteFile(jax, []byte(`{"jax":"test","results":[{"name":"mlp-step-b1","steps_per_s":1000},{"name":"mlp-step-b8","error":"boom"},{"name":"matmul-f32","tflops":0.001}]}`), 0o644)
	out := filepath.Join(dir, "compare.json")
	err := compare([]string{"-device", "xla:cpu", "-torch", torch, "-jax", jax, "-out", out, "-batches", "1,8",
		"-n", "64", "-ln-rows", "64", "-ln-cols", "64", "-copy-bytes", "65536", "-check-n", "32"})
	// batch 8's JAX entry is an error: its target has no peer number, which is loud and an error.
	if err == nil || !strings.Contains(err.Error(), "mlp-step-b8: JAX has no number (error: boom)") || !strings.Contains(err.Error(), "-allow-missing-peer") {
		t.Fatalf("a target without its peer's number did not fail: %v", err)
	}
	var rep CompareReport
	b, rerr := os.ReadFile(out)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 8 {
		t.Errorf("rows = %d, want 8 (6 shapes, 2 MLP batches)", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		if r.OursRate <= 0 {
			t.Errorf("%s: rate %v", r.Name, r.OursRate)
		}
		if (r.Name == "matmul-bf16" || r.Name == "copy-d2d") && r.Ratio <= 0 {
			t.Errorf("%s: no ratio against PyTorch", r.Name)
		}
		if wantJAX := r.Name == "mlp-step-b1" || r.Name == "matmul-f32"; wantJAX != (r.JAXRatio > 0) {
			t.Errorf("%s: JAX ratio %v, want one: %v", r.Name, r.JAXRatio, wantJAX)
		}
	}
	var mlpChecks int
	for _, c := range rep.Checks {
		if strings.HasPrefix(c.What, "MLP step") {
			mlpChecks++
		}
	}
	if mlpChecks != 1 {
		t.Errorf("MLP step checks = %d, want 1 (batch 1; batch 8's JAX entry is an error)", mlpChecks)
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

func TestPositiveInts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		err  bool
	}{
		{"1,256,4096", []int{1, 256, 4096}, false},
		{" 1, ,2 ", []int{1, 2}, false},
		{"", nil, false},
		{"1,0", nil, true},
		{"x", nil, true},
	} {
		got, err := positiveInts("compare", "-batches", c.in)
		if (err != nil) != c.err || len(got) != len(c.want) {
			t.Errorf("positiveInts(%q) = %v, %v; want %v (error %v)", c.in, got, err, c.want, c.err)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("positiveInts(%q) = %v, want %v", c.in, got, c.want)
			}
		}
	}
}

// A target whose peer did not run, or has no number for its row, is listed (and fails the run).
func TestMissingPeers(t *testing.T) {
	torch := peerReport{Torch: "2.9", Results: []peerResult{{Name: "matmul-bf16", TFLOPS: 700}}}
	jax := peerReport{JAX: "0.7", Results: []peerResult{{Name: "mlp-step-b1", StepsPerS: 1e4}, {Name: "mlp-step-b8", Error: "oom"}}}
	tests := []struct {
		name string
		rep  CompareReport
		want []string
	}{
		{"both peers, all rows", CompareReport{Torch: torch, JAX: jax}, nil},
		{"a row with an error", CompareReport{Torch: torch, JAX: jax}, []string{"mlp-step-b8: JAX has no number (error: oom)"}},
		{"no PyTorch at all", CompareReport{JAX: jax}, []string{"matmul-bf16: no PyTorch report (-torch)"}},
		{"no JAX at all", CompareReport{Torch: torch}, []string{"mlp-step-b1: no JAX report (-jax)"}},
	}
	for i, tc := range tests {
		batches := []int{1}
		if i == 1 {
			batches = []int{1, 8}
		}
		got := missingPeers(tc.rep, batches)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
			continue
		}
		for j := range got {
			if got[j] != tc.want[j] {
				t.Errorf("%s: %q, want %q", tc.name, got[j], tc.want[j])
			}
		}
	}
}
