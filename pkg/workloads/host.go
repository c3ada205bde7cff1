package workloads

import (
	"math/rand/v2"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// HostInput is a host array to upload with its dimensions.
type HostInput struct {
	Values []float32
	Dims   []int
}

// UploadAll converts inputs to dt and uploads them, freeing what it uploaded if one fails.
func UploadAll(dev *devices.Device, dt dtypes.DType, ins []HostInput) ([]any, error) {
	var out []any
	for _, in := range ins {
		t, err := CastOnDevice(dev, in.Values, dt, in.Dims...)
		if err != nil {
			FinalizeAll(out)
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// FinalizeAll frees the tensors among xs.
func FinalizeAll(xs []any) {
	for _, x := range xs {
		if t, ok := x.(*tensors.Tensor); ok && t != nil {
			_ = t.FinalizeAll()
		}
	}
}

// SeedOrFresh returns seed, or a fresh random one when seed is 0: by default every Prepare checks
// new random inputs; a fixed Seed makes a run reproducible.
func SeedOrFresh(seed uint64) uint64 {
	if seed == 0 {
		return rand.Uint64() | 1
	}
	return seed
}
