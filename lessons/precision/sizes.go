package precision

import (
	"fmt"
	"slices"

	"github.com/gomlx/compute/dtypes"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// MatMuls is a matmul the learner writes in a cell: its side and the element types to time it in.
type MatMuls struct {
	N      int      // side of the n×n matmul
	DTypes []string // "float64", "float32", "bfloat16", "float16"
}

// MaxMatMulN is the largest side a cell may ask for: 2·4096³ ≈ 1.4·10¹¹ FLOPs, a second or two per
// timed sample on a laptop in float64.
const MaxMatMulN = 4096

// Validate says why a matmul is refused: a side out of range, no element type, or one that is not
// among the lesson's (dtypes.MapOfNames spells them).
func (m MatMuls) Validate() error {
	if m.N < 1 || m.N > MaxMatMulN {
		return fmt.Errorf("%s: side %d refused before anything is allocated: use 1…%d (a %d×%d float64 matmul is already %.3g FLOPs and %.3g GB of operands)",
			Lesson, m.N, MaxMatMulN, MaxMatMulN, MaxMatMulN, 2*float64(MaxMatMulN)*MaxMatMulN*MaxMatMulN, 3*8*float64(MaxMatMulN)*MaxMatMulN/1e9)
	}
	if len(m.DTypes) == 0 {
		return fmt.Errorf("%s: give at least one element type", Lesson)
	}
	for _, name := range m.DTypes {
		if dt, ok := dtypes.MapOfNames[name]; !ok || !slices.Contains(DTypes, dt) {
			return fmt.Errorf("%s: element type %q refused: use float64, float32, bfloat16 or float16", Lesson, name)
		}
	}
	return nil
}

// MatMulsHere times the learner's matmul in each of its element types on every XLA device here,
// checked against float64 like the lesson's sweep (which it is, at a side and types from the cell).
// A type a device cannot run is an error that says why.
func MatMulsHere(m MatMuls) ([]measure.Result, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return experiments.LiveOnEachDevice(func(d *devices.Device) ([]measure.Result, error) {
		var out []measure.Result
		for _, name := range m.DTypes {
			dt := dtypes.MapOfNames[name]
			if ok, why := workloads.Supports(d, dt); !ok {
				return out, fmt.Errorf("%s: %s cannot run %s: %s", Lesson, d.Name, name, why)
			}
			r, err := timeMatMul(d, m.N, dt)
			if err != nil {
				return out, err
			}
			out = append(out, r)
		}
		return out, nil
	})
}
