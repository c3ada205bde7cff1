package roofline

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// ExerciseRidge is lesson 02's formula for the learner: the ridge point, checked against
// datasheet.Ceilings.Ridge and applied to the ceilings the learner measured on xla:cpu.
var ExerciseRidge = exercise.Exercise{
	Key:       "02/ridge",
	Task:      "the ridge point: how many FLOPs a workload must do per byte it moves before the compute ceiling, not memory bandwidth, limits it.",
	Signature: "Ridge(peakFLOPs, bytesPerSec float64) float64",
	Unit:      "FLOP/byte",
	Cases: []exercise.Case{
		{Name: "H200 bfloat16 (datasheet)", Args: []float64{datasheet.H200.Peak("bfloat16"), datasheet.H200.Bandwidth()}},
		{Name: "H100 float32 (datasheet)", Args: []float64{datasheet.H100.Peak("float32"), datasheet.H100.Bandwidth()}},
		{Name: "a CPU: 2 TFLOP/s, 200 GB/s", Args: []float64{2e12, 200e9}},
	},
	Course: func(x []float64) float64 {
		return datasheet.Ceilings{PeakFLOPS: map[string]float64{"x": x[0]}, BandwidthBytes: x[1]}.Ridge("x")
	},
	Hint:   "the roofline's two roofs meet where intensity × bandwidth = peak compute: solve for the intensity (FLOP/byte).",
	Answer: "return peakFLOPs / bytesPerSec",
	Why:    "Below the ridge a workload is memory-bandwidth-bound, above it compute-bound. A GPU's 16-bit tensor-core ridge is in the hundreds, so only large matmuls (or large batches) reach its compute roof.",
	Measured: func() (exercise.Measurement, error) {
		dev, err := devices.Open(devices.CPU)
		if err != nil {
			return exercise.Measurement{}, err
		}
		c, ok := measure.CachedCeilings(dev)
		if !ok || c.BytesPerSec == 0 || c.FLOPS["float32"] == 0 {
			return exercise.Measurement{}, fmt.Errorf("%s: no ceilings measured for %s yet: run the ridge cell above first", Lesson, devices.CPU)
		}
		return exercise.Measurement{Case: exercise.Case{Name: "float32 matmul ÷ copy bandwidth", Args: []float64{c.FLOPS["float32"], c.BytesPerSec}},
			What: "your measured " + devices.CPU + " ceilings"}, nil
	},
}
