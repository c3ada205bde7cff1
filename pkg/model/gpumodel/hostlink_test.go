package gpumodel

import (
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
)

// A host copy's band is bytes over the reached bandwidth plus the latency, at each end.
func TestTransfer(t *testing.T) {
	cases := []struct {
		link      Link
		bytes     float64
		low, high time.Duration
	}{
		{Link{BytesPerS: 100e9, Efficiency: Range{1, 0.5}, Latency: Range{0, 1e-6}}, 1e9, 10 * time.Millisecond, 20*time.Millisecond + time.Microsecond},
		{Link{BytesPerS: 1e9, Efficiency: Range{1, 1}, Latency: Range{1e-6, 1e-6}}, 0, time.Microsecond, time.Microsecond},
	}
	for _, tc := range cases {
		lo, hi := tc.link.Transfer(tc.bytes)
		if lo != tc.low || hi != tc.high {
			t.Errorf("%+v: %v – %v, want %v – %v", tc.link, lo, hi, tc.low, tc.high)
		}
	}
	links := HostLinks(datasheet.H200)
	if len(links) != 2 || links[0].BytesPerS != datasheet.H200.PCIeBytes || links[0].BytesPerS >= links[1].BytesPerS {
		t.Errorf("host links %+v: want the H200's PCIe slot, then the faster NVLink-C2C", links)
	}
}
