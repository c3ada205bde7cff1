package measure

import (
	"testing"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

func TestReadMemory(t *testing.T) {
	m := ReadMemory()
	if m.RSS == 0 {
		t.Error("RSS = 0")
	}
	if len(devices.GPUs()) == 0 && (m.GPUUsed != 0 || m.GPUTotal != 0) {
		t.Errorf("no GPU here but GPU memory %+v", m)
	}
	if s := m.String(); s == "" {
		t.Error("empty String")
	}
}

func TestMemoryUsageSub(t *testing.T) {
	for _, tc := range []struct {
		a, b, want MemoryUsage
	}{
		{MemoryUsage{RSS: 10, GPUUsed: 5, GPUTotal: 9}, MemoryUsage{RSS: 4, GPUUsed: 1}, MemoryUsage{RSS: 6, GPUUsed: 4, GPUTotal: 9}},
		{MemoryUsage{RSS: 1}, MemoryUsage{RSS: 4}, MemoryUsage{}}, // shrinking floors at 0
	} {
		if got := tc.a.Sub(tc.b); got != tc.want {
			t.Errorf("%+v.Sub(%+v) = %+v, want %+v", tc.a, tc.b, got, tc.want)
		}
	}
}
