package dataparallel

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// ExerciseRing is lesson 10's formula for the learner: the time of a ring all-reduce, checked
// against gpumodel.Link.RingAllReduce at full efficiency and no latency, and applied to the learner's
// measured GPT gradients on eight GPUs over NVLink.
var ExerciseRing = exercise.Exercise{
	Key:       "10/ring-allreduce",
	Task:      "the time of a ring all-reduce of gradBytes of gradients across n devices, each link moving bytesPerSec per direction (full efficiency, no latency).",
	Signature: "RingSeconds(gradBytes, n, bytesPerSec float64) float64",
	Unit:      "s",
	Cases: []exercise.Case{
		{Name: "350 M bf16 gradients, 8 GPUs, " + gpumodel.NVLinkH200.Name, Args: []float64{700e6, 8, gpumodel.NVLinkH200.BytesPerS}},
		{Name: "350 M bf16 gradients, 2 nodes, " + gpumodel.Net100G.Name, Args: []float64{700e6, 2, gpumodel.Net100G.BytesPerS}},
		{Name: "1 GB, 64 devices, " + gpumodel.Net400G.Name, Args: []float64{1e9, 64, gpumodel.Net400G.BytesPerS}},
	},
	Course: func(x []float64) float64 {
		l := gpumodel.Link{BytesPerS: x[2], Efficiency: gpumodel.Range{Low: 1, High: 1}}
		lo, _ := l.RingAllReduce(x[0], int(x[1]))
		return lo.Seconds()
	},
	Tolerance: 1e-6,
	Hint:      "a reduce-scatter then an all-gather, n−1 steps each; in every step each device sends 1/n of the gradients. Count the bytes each device sends, then divide by the bandwidth.",
	Answer:    "return 2 * (n - 1) / n * gradBytes / bytesPerSec",
	Why:       "The time barely grows with n (2·(n−1)/n → 2): the link's bandwidth, not the device count, sets it. It hides behind the backward pass when each device's compute per step is long enough.",
	Measured: func() (exercise.Measurement, error) {
		rs, err := predict.KeptAny(KeepMemory)
		if err != nil {
			return exercise.Measurement{}, err
		}
		p, _ := rs[0].Metric(MetricParamsBytes)
		if p == 0 {
			return exercise.Measurement{}, fmt.Errorf("%s: no memory measurement kept: run the memory cell first", Lesson)
		}
		return exercise.Measurement{Case: exercise.Case{
			Name: fmt.Sprintf("your GPT's %.3g MB of float32 gradients on 8 GPUs over %s", p/1e6, gpumodel.NVLinkH200.Name),
			Args: []float64{p, 8, gpumodel.NVLinkH200.BytesPerS}}, What: "the gradient bytes you measured"}, nil
	},
}
