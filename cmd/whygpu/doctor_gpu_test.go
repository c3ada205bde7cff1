package main

import (
	"strings"
	"testing"
)

// Without a GPU, doctor says what the learner will see: the model until a recording exists.
func TestNoGPULine(t *testing.T) {
	for _, tc := range []struct {
		recorded []string
		want     []string
	}{
		{nil, []string{"no GPU recording", "GPU model", "band", "whygpu record"}},
		{[]string{"nvidia-h200"}, []string{"nvidia-h200", "recorded", "GPU model", "every size nobody recorded"}},
	} {
		got := noGPULine(tc.recorded, "NVIDIA H200 SXM")
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("noGPULine(%v) = %q, lacks %q", tc.recorded, got, w)
			}
		}
	}
}
