package workloads

import (
	"github.com/gpu-course/whygpu/internal/devicetest"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// TestInt8MatMulExact runs the int8 product on xla:cpu and checks it equals the host's integer
// product exactly, at shapes below and above checkRows.
func TestInt8MatMulExact(t *testing.T) {
	for _, w := range []Int8MatMul{
		{M: 1, K: 64, N: 32},
		{M: 33, K: 47, N: 29, Seed: 3},
		{M: 100, K: 127, N: 16}, // M > checkRows: sampled rows
	} {
		t.Run(w.String(), func(t *testing.T) {
			dev := devicetest.Open(t, devices.CPU)
			inst := Compiled(t, dev, w)
			if e, err := inst.Check(); err != nil || e != 0 {
				t.Fatalf("relative error %g (want exactly 0), err %v", e, err)
			}
			t0 := time.Now()
			if err := inst.Run(); err != nil {
				t.Fatal(err)
			}
			t.Logf("one run: %v", time.Since(t0))
		})
	}
}

// TestInt8MatMulFormulas checks the counts of the doc comment.
func TestInt8MatMulFormulas(t *testing.T) {
	w := Int8MatMul{M: 2, K: 3, N: 5}
	if w.FLOPs() != 60 || w.Bytes() != 2*3+3*5+4*2*5 {
		t.Fatalf("FLOPs %g, Bytes %g", w.FLOPs(), w.Bytes())
	}
	if err := (Int8MatMul{M: 0, K: 1, N: 1}).Validate(); err == nil {
		t.Fatal("a zero size passed Validate")
	}
}
