package datamovement

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of lesson 04.
var (
	// PredictUpload: host→device bandwidth at the largest transfer.
	PredictUpload = predict.Question{
		Key:  "04/h2d-gbps",
		Text: "Copying the largest buffer host→device on xla:cpu: how many GB/s? (on a GPU this crosses PCIe; here it stays in RAM) (GB/s)",
		Unit: "GB/s",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(KeepTransfer, devices.CPU)
			if err != nil {
				return 0, err
			}
			var up []results.Result
			for _, r := range rs {
				if r.Workload == "transfer-h2d" {
					up = append(up, r)
				}
			}
			_, hi, err := predict.Ends(up, "bytes")
			if err != nil {
				return 0, err
			}
			return hi.GBPerSec(), nil
		},
		Why: "On a CPU 'device' memory is the same RAM, so an upload is a memory copy; a GPU's PCIe link is far slower than either memory.",
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

// MineUpload is lesson 04's recall card from the learner's own upload bandwidth.
var MineUpload = predict.Mine("04/mine-upload", PredictUpload,
	func(g float64) string {
		return fmt.Sprintf("You measured %s GB/s host→device on xla:cpu. How long does one batch of 256 float32 images of 224×224×3 take to upload at that rate, and at a PCIe Gen5 x16 link's nominal 64 GB/s?", predict.Num(g))
	},
	func(g float64) string {
		b := 256.0 * 224 * 224 * 3 * 4
		return fmt.Sprintf("%s MB: %s ms here, %s ms over PCIe at 64 GB/s — the GPU's step must be longer than that, or the upload overlapped with it.", predict.Num(b/1e6), predict.Num(1e3*b/(g*1e9)), predict.Num(1e3*b/64e9))
	})
