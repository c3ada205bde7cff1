package gpumodel

import (
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
)

// NVLinkC2C is the chip-to-chip link between the Grace CPU and the Hopper GPU of a GH200
// superchip: the fastest host link the course models, against a GPU's PCIe slot.
var NVLinkC2C = Link{Name: "NVLink-C2C (GH200)", BytesPerS: 450e9, Efficiency: Range{0.85, 0.7}, Latency: Range{1e-6, 5e-6},
	Source: "NVIDIA GH200 Grace Hopper Superchip datasheet: 900 GB/s NVLink-C2C between CPU and GPU (both directions together), so 450 GB/s each way; 70–85% of it reached and 1–5 µs per transfer (assumed)"}

// HostLinks are the links between host memory and g's memory the model knows, slowest first: g's
// PCIe slot (datasheet.GPU.PCIe, its nominal bytes per direction) and NVLink-C2C.
func HostLinks(g datasheet.GPU) []Link {
	pcie := Link{Name: g.PCIe + " (" + g.Short + ")", BytesPerS: g.PCIeBytes, Efficiency: Range{0.85, 0.7}, Latency: Range{5e-6, 20e-6},
		Source: "nominal per direction from the link's generation and width; 70–85% of it reached by large pinned copies and 5–20 µs per transfer (assumed)"}
	return []Link{pcie, NVLinkC2C}
}

// Transfer is the model's band for one copy of bytes in one direction over l:
//
//	time = bytes / (efficiency · bandwidth) + latency
func (l Link) Transfer(bytes float64) (low, high time.Duration) {
	return seconds(bytes/(l.Efficiency.Low*l.BytesPerS) + l.Latency.Low), seconds(bytes/(l.Efficiency.High*l.BytesPerS) + l.Latency.High)
}
