package datamovement

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of lesson 04.
var (
	// PredictUpload: how much more bandwidth the largest copy gets than the smallest.
	PredictUpload = predict.Question{
		Key:  "04/h2d-large-over-small",
		Text: "Host→device on xla:cpu: how many times more bytes per second will the largest copy of the sweep move than the smallest (4 KiB)? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			lo, hi, err := uploadEnds()
			if err != nil {
				return 0, err
			}
			return hi.GBPerSec() / lo.GBPerSec(), nil
		},
		Why: uploadWhy(),
	}
	// PredictBusOverHBM: the datasheet gap between the host link and device memory.
	PredictBusOverHBM = predict.Question{
		Key:   "04/h200-pcie-over-hbm",
		Text:  "GPU (answered by the H200 datasheet, a model): how many times longer does a 256 MB batch take to arrive over its PCIe Gen5 x16 link than to be read once from its HBM? (a factor)",
		Model: "datasheet",
		Unit:  "×",
		Answer: func() (float64, error) {
			g := datasheet.H200
			return g.Ceilings.BandwidthBytes / g.PCIeBytes, nil
		},
		Why: "Model (datasheet rates). Both times are the same bytes over a bandwidth: 64 GB/s for the link against 4.8 TB/s for HBM, whatever the batch's size (for large copies).",
	}
	// PredictSync: the cost of reading the loss every step.
	PredictSync = predict.Question{
		Key:  "04/sync-slowdown",
		Text: "How many times longer per step will the loop take when it reads the loss back every step than when it reads it only at the end? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(KeepSync, devices.CPU)
			if err != nil {
				return 0, err
			}
			every, err := predict.Where(rs, "read_every", 1)
			if err != nil {
				return 0, err
			}
			end, err := predict.Where(rs, "read_every", 0)
			if err != nil {
				return 0, err
			}
			return every.Seconds() / end.Seconds(), nil
		},
		Why: "Each read makes the host wait for the device and the device wait for the host: the wait, not the few bytes, is the cost.",
	}
)

// uploadWhy explains PredictUpload, with the ratio a GPU's link would give computed from the GPU
// model's host link (an H200's PCIe, pinned copies of the sweep's end sizes).
func uploadWhy() string {
	link := gpumodel.HostLinks(datasheet.H200)[0]
	const small, large = 4 << 10, 64 << 20
	sLo, sHi := link.Transfer(small)
	lLo, lHi := link.Transfer(large)
	ratio := func(s, l time.Duration) float64 { return (large / l.Seconds()) / (small / s.Seconds()) }
	return fmt.Sprintf("A copy pays a fixed cost per call plus bytes ÷ bandwidth. Over a GPU's link a 4 KiB copy is almost all fixed cost: "+
		"the course's model of %s (not a measurement: %s per pinned copy plus the bytes at %.0f–%.0f%% of %s) gives the 64 MiB copy %.0f–%.0f× the 4 KiB copy's bandwidth. "+
		"Here the \"link\" is a memcpy into fresh memory, where a small copy can run from cache and a large one pays page faults, so the ratio can come out near 1 or below.",
		link.Name, latency(link), 100*link.ToDevice.High, 100*link.ToDevice.Low, units.SI(link.BytesPerS, "B/s"), ratio(sLo, lLo), ratio(sHi, lHi))
}

// latency is a link's fixed cost per transfer in words: "5–20 µs".
func latency(l gpumodel.Link) string {
	return fmt.Sprintf("%.3g–%.3g µs", l.Latency.Low*1e6, l.Latency.High*1e6)
}

// uploadEnds is the smallest and the largest host→device copy kept by the sweep on xla:cpu.
func uploadEnds() (lo, hi results.Result, err error) {
	rs, err := predict.Kept(KeepTransfer, devices.CPU)
	if err != nil {
		return lo, hi, err
	}
	var up []results.Result
	for _, r := range rs {
		if r.Workload == "transfer-h2d" {
			up = append(up, r)
		}
	}
	return predict.Ends(up, "bytes")
}

// uploadGBPerSec is the bandwidth of the largest host→device copy kept on xla:cpu.
func uploadGBPerSec() (float64, error) {
	_, hi, err := uploadEnds()
	return hi.GBPerSec(), err
}

// MineUpload is lesson 04's recall card from the learner's own upload bandwidth.
var MineUpload = predict.Mine("04/mine-upload", predict.Question{
	Key: "04/h2d-gbps", Text: "the largest host→device copy's bandwidth on xla:cpu", Unit: "GB/s", Answer: uploadGBPerSec},
	func(g float64) string {
		return fmt.Sprintf("You measured %s GB/s host→device on xla:cpu. How long does one batch of 256 float32 images of 224×224×3 take to upload at that rate, and at a PCIe Gen5 x16 link's nominal 64 GB/s?", predict.Num(g))
	},
	func(g float64) string {
		b := 256.0 * 224 * 224 * 3 * 4
		return fmt.Sprintf("%s MB: %s ms here, %s ms over PCIe at 64 GB/s — the GPU's step must be longer than that, or the upload overlapped with it.", predict.Num(b/1e6), predict.Num(1e3*b/(g*1e9)), predict.Num(1e3*b/64e9))
	})
