package roofline

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Limits of Sizes a learner writes in a cell, checked before anything is allocated.
const (
	MaxMatMulN   = 8192    // 3 × 8192² float32 = 805 MB
	MaxElements  = 1 << 28 // 1 GiB of float32 per buffer
	MaxMatMulsAt = 8
)

// Validate says why sizes are refused: a matmul side, layernorm shape or vector length out of range.
// Empty MatMulTypes means float32.
func (s Sizes) Validate() error {
	if len(s.MatMul) == 0 || len(s.MatMul) > MaxMatMulsAt {
		return fmt.Errorf("%s: give 1…%d matmul sizes (got %d)", Lesson, MaxMatMulsAt, len(s.MatMul))
	}
	for _, n := range s.MatMul {
		if n < 1 || n > MaxMatMulN {
			return fmt.Errorf("%s: matmul n = %d refused before anything is allocated: use 1…%d (its three n×n float32 matrices would take %.3g GB)",
				Lesson, n, MaxMatMulN, 3*float64(n)*float64(n)*4/1e9)
		}
	}
	if s.LNRows < 1 || s.LNCol < 1 || s.LNRows*s.LNCol > MaxElements {
		return fmt.Errorf("%s: layernorm %d×%d refused: rows and columns ≥ 1, at most %d values", Lesson, s.LNRows, s.LNCol, MaxElements)
	}
	if s.Elementwise < 1 || s.Elementwise > MaxElements {
		return fmt.Errorf("%s: y = a·x + b over %d values refused: use 1…%d", Lesson, s.Elementwise, MaxElements)
	}
	return nil
}

// PointsAt measures the learner's sizes on xla:cpu (float32 when MatMulTypes is empty), checked like
// Points, for a roofline of their own.
func PointsAt(s Sizes) ([]results.Result, error) {
	if len(s.MatMulTypes) == 0 {
		s.MatMulTypes = []dtypes.DType{dtypes.Float32}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return nil, err
	}
	return Points(dev, s)
}
