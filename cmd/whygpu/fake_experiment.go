//go:build whygpufake

package main

// A tiny experiment compiled in only with -tags whygpufake: the test that proves a prebuilt binary
// records without Go or a checkout (record_binary_test.go) builds with it.

import (
	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// fakeExperiments is what a -tags whygpufake binary records besides the lessons' experiments.
var fakeExperiments = experiments.List{{
	Lesson: "98-binary", Name: "tiny-matmul", Doc: "a 48×48 float32 matmul (test binary only)",
	Run: func(dev *devices.Device, s experiments.Scale) ([]results.Result, error) {
		r, err := measure.Run(dev, workloads.Square(48, dtypes.Float32), measure.Options{Warmup: 1, Reps: 3}, true)
		return []results.Result{r}, err
	},
}}
