package gpumodel

import (
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
)

// NVLinkC2C is the chip-to-chip link between the Grace CPU and the Hopper GPU of a GH200
// superchip: the fastest host link the course models, against a GPU's PCIe slot.
var NVLinkC2C = Link{Name: "NVLink-C2C (GH200)", BytesPerS: 450e9, Efficiency: Range{0.85, 0.7}, Latency: Range{1e-6, 5e-6},
	Source: "NVIDIA GH200 Grace Hopper Superchip datasheet: 900 GB/s NVLink-C2C between CPU and GPU (both directions together), so 450 GB/s each way; 70–85% of it reached and 1–5 µs per transfer (assumed)"}

// HostLinkSource says where the PCIe directions come from.
const HostLinkSource = "nominal per direction from the link's generation and width; a large pinned copy reaches 70–88% of it from the GPU to the host and 55–85% from the host to the GPU (the bottom calibrated on nvbandwidth's host_to_device_memcpy_sm on an H100 cluster, 35.2 GB/s against 52.8 GB/s the other way, NVIDIA/nvbandwidth#24); 5–20 µs per transfer (assumed)"

// HostLinks are the links between host memory and g's memory the model knows, slowest first: g's
// PCIe slot (datasheet.GPU.PCIe, its nominal bytes per direction) and NVLink-C2C.
func HostLinks(g datasheet.GPU) []Link {
	pcie := Link{Name: g.PCIe + " (" + g.Short + ")", BytesPerS: g.PCIeBytes, Efficiency: Range{0.85, 0.7}, Latency: Range{5e-6, 20e-6},
		ToDevice: Range{0.85, 0.55}, ToHost: Range{0.88, 0.70}, Source: HostLinkSource}
	return []Link{pcie, NVLinkC2C}
}

// Direction of a host copy.
type Direction int

const (
	ToDevice Direction = iota // host → GPU (cudaMemcpyHostToDevice)
	ToHost                    // GPU → host
)

func (d Direction) String() string {
	if d == ToHost {
		return "device → host"
	}
	return "host → device"
}

// efficiency is the fraction of BytesPerS a large pinned copy reaches in direction d.
func (l Link) efficiency(d Direction) Range {
	switch {
	case d == ToDevice && l.ToDevice.Low > 0:
		return l.ToDevice
	case d == ToHost && l.ToHost.Low > 0:
		return l.ToHost
	}
	return l.Efficiency
}

// Transfer is the model's band for one copy of bytes from pinned (page-locked) host memory in one
// direction over l (the host → device efficiency where the direction is not given):
//
//	time = bytes / (efficiency · bandwidth) + latency
func (l Link) Transfer(bytes float64) (low, high time.Duration) { return l.Copy(bytes, ToDevice, true) }

// StagingBytesPerS is the host's own copy rate when the driver stages a pageable buffer through a
// pinned one: 8–20 GB/s for one thread's memcpy of a large buffer — the course's assumption. A host
// whose memcpy is slower lies below the band (gengwg/gpu's Dell A100 PCIe host: 3.3 GB/s pageable
// against 17.3 GB/s pinned, a staging rate near 4 GB/s).
var StagingBytesPerS = Range{Low: 20e9, High: 8e9}

// Copy is the band of one copy of bytes in direction d. From pinned memory the DMA engine reads
// the host buffer directly; from pageable memory (pinned false) the driver first copies it into a
// pinned staging buffer and then the DMA engine copies that (NVIDIA's "How to Optimize Data
// Transfers in CUDA C/C++" describes this staging): the two copies are charged one after the other
// (pageable = staging copy + the link's copy, issue 34), at both ends of the band.
func (l Link) Copy(bytes float64, d Direction, pinned bool) (low, high time.Duration) {
	e := l.efficiency(d)
	dmaLo, dmaHi := bytes/(e.Low*l.BytesPerS), bytes/(e.High*l.BytesPerS)
	if pinned {
		return seconds(dmaLo + l.Latency.Low), seconds(dmaHi + l.Latency.High)
	}
	stLo, stHi := bytes/StagingBytesPerS.Low, bytes/StagingBytesPerS.High
	return seconds(dmaLo + stLo + l.Latency.Low), seconds(dmaHi + stHi + l.Latency.High)
}

// BytesAtDatasheet is bytes ÷ g's datasheet HBM bandwidth: the floor no kernel beats, with no
// fraction of the bandwidth and no fixed cost (for a table that sets bare bytes ÷ rate side by side).
func BytesAtDatasheet(g datasheet.GPU, bytes float64) time.Duration {
	return seconds(bytes / g.Ceilings.BandwidthBytes)
}
