package dataparallel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
)

// The bubble formula at the cases a learner can check by hand.
func TestBubble(t *testing.T) {
	cases := []struct {
		p, m int
		want float64
	}{
		{1, 1, 0},   // one stage: no pipeline, no bubble
		{2, 1, 0.5}, // two stages, one micro-batch: each idles half the step
		{4, 4, 3. / 7},
		{8, 32, 7. / 39},
		{0, 4, 0}, // nonsense counts: no bubble, not a panic
	}
	for _, tc := range cases {
		if got := Bubble(tc.p, tc.m); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Bubble(%d, %d) = %g, want %g", tc.p, tc.m, got, tc.want)
		}
	}
	if _, err := BubbleChart(); err != nil {
		t.Error(err)
	}
	if s := BubbleTable().String(); !strings.Contains(s, "43%") {
		t.Errorf("bubble table lacks p=4, m=4 (43%%):\n%s", s)
	}
}

// Tensor parallelism: the bytes are B·T·D bf16 values, the FLOPs follow the formula, the ratio of
// traffic to compute does not depend on the tokens (but for the links' latency), and the table carries the model's label.
func TestTensorParallel(t *testing.T) {
	l := Layer{Width: 1024, Tokens: 2048, Seq: 2048}
	if l.AllReduceBytes() != 2*2048*1024 {
		t.Errorf("all-reduce bytes %g", l.AllReduceBytes())
	}
	if want := 3 * (24*2048*1024*1024.0 + 4*2048*2048*1024.0); l.FLOPs() != want {
		t.Errorf("FLOPs %g, want %g", l.FLOPs(), want)
	}
	a := TensorParallel(Layer{Width: 4096, Tokens: 1 << 16, Seq: 1}, []int{8})[0]
	b := TensorParallel(Layer{Width: 4096, Tokens: 1 << 17, Seq: 1}, []int{8})[0]
	if ra, rb := a.CommHigh/a.ComputeHigh, b.CommHigh/b.ComputeHigh; math.Abs(ra/rb-1) > 0.05 {
		t.Errorf("traffic ÷ compute changed with the tokens: %g vs %g", ra, rb)
	}
	for _, bad := range []Layer{{Width: 8, Tokens: 1, Seq: 1}, {Width: 1024, Tokens: 0, Seq: 0}, {Width: 1024, Tokens: 4, Seq: 8}} {
		if _, err := TensorParallelTable(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	tab, err := TensorParallelTable(DefaultLayer)
	if err != nil {
		t.Fatal(err)
	}
	if err := gpumodel.CheckLabeled(tab.String()); err != nil {
		t.Errorf("%v\n%s", err, tab)
	}
}
