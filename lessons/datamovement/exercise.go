package datamovement

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// ExerciseCopy is lesson 04's formula for the learner: the time of a copy at a link's bandwidth,
// then set against the learner's smallest measured upload, which bandwidth alone does not explain.
var ExerciseCopy = exercise.Exercise{
	Key:       "04/copy-seconds",
	Task:      "the time to copy a buffer over a link, from its size and the link's bandwidth alone.",
	Signature: "CopySeconds(bytes, bytesPerSec float64) float64",
	Unit:      "s",
	Cases: []exercise.Case{
		{Name: "a 256×784 float32 batch over " + datasheet.H200.PCIe, Args: []float64{256 * 784 * 4, datasheet.H200.PCIeBytes}},
		{Name: "1 GiB over " + datasheet.H200.PCIe, Args: []float64{1 << 30, datasheet.H200.PCIeBytes}},
		{Name: "1 GiB at an HBM rate of 4.8 TB/s", Args: []float64{1 << 30, datasheet.H200.Bandwidth()}},
	},
	Course: func(x []float64) float64 { return x[0] / x[1] }, // bandwidth is bytes per second: its definition, no model
	Hint:   "bandwidth is bytes per second: how many seconds do the bytes take?",
	Answer: "return bytes / bytesPerSec",
	Why:    "Bandwidth alone predicts large copies. Expect a small copy to take longer than this: every copy pays a fixed cost first (a call, a synchronization) — why a batch crosses the link in one piece, not many.",
	Measured: func() (exercise.Measurement, error) {
		rs, err := predict.Kept(KeepTransfer, devices.CPU)
		if err != nil {
			return exercise.Measurement{}, err
		}
		var up []results.Result
		for _, r := range rs {
			if r.Workload == "transfer-h2d" {
				up = append(up, r)
			}
		}
		lo, hi, err := predict.Ends(up, "bytes")
		if err != nil {
			return exercise.Measurement{}, err
		}
		return exercise.Measurement{
			Case:  exercise.Case{Name: fmt.Sprintf("your smallest upload (%.0f bytes) at your largest upload's %.3g GB/s", lo.Bytes, hi.GBPerSec()), Args: []float64{lo.Bytes, hi.BytesPerSec()}},
			Value: lo.Seconds(), What: "your transfer sweep on " + devices.CPU,
			Note: "A measured/formula ratio well above 1 is the fixed cost per copy, which bytes ÷ bandwidth leaves out.",
		}, nil
	},
}
