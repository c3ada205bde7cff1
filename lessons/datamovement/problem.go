package datamovement

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// modelBytes is the problem's upload: a 7B-parameter model's weights in bfloat16.
const modelBytes = 14e9

// ProblemPageable is lesson 04's applied problem: a 14 GB upload over an H200's PCIe link from
// pageable memory, with the staging copy at the learner's measured host-memory copy rate.
var ProblemPageable = exercise.Problem{
	Key: "04/pageable-14gb",
	Question: "A 7B-parameter model's bf16 weights (14 GB) go to an H200 over PCIe Gen5 x16 (64 GB/s per direction, nominal). " +
		"From pinned memory the copy engine streams them at the link's rate. From pageable memory the driver first copies them into a pinned " +
		"staging buffer, an ordinary memcpy in RAM that reads and writes every byte, at this CPU's copy bandwidth beyond the caches " +
		"(reads + writes, printed under the sweep's table). Assume the two copies do not overlap (the driver actually overlaps them in chunks). " +
		"How many seconds does the pageable upload take? (s)",
	Unit:    "s",
	Formula: "2 × 14 GB ÷ copy bandwidth + 14 GB ÷ 64 GB/s",
	Hint:    "Two copies one after the other: the memcpy moves each byte twice (a read and a write) at the measured bandwidth, then the link moves it once. Each is bytes ÷ bandwidth.",
	Solve: func() (exercise.Solution, error) {
		ram, err := copyGBPerSec()
		if err != nil {
			return exercise.Solution{}, err
		}
		if ram <= 0 {
			return exercise.Solution{}, fmt.Errorf("%s: no copy bandwidth kept with the transfers on %s: run the transfer cell first", Lesson, devices.CPU)
		}
		link := datasheet.H200.PCIeBytes
		tLink, tRAM := modelBytes/link, 2*modelBytes/(ram*1e9)
		return exercise.Solution{Value: tLink + tRAM, Steps: []string{
			fmt.Sprintf("Pinned: 14 GB ÷ %.0f GB/s = %.2f s, the link's time alone.", link/1e9, tLink),
			fmt.Sprintf("Staging memcpy in RAM, each byte read and written, at your measured %.3g GB/s: 2 × 14 GB ÷ %.3g GB/s = %.2f s.", ram, ram, tRAM),
			fmt.Sprintf("Pageable, not overlapped: %.2f + %.2f = %.2f s, %.1f× the pinned upload. (A driver can pipeline the two in chunks, so a real pageable copy may land between the two figures.)", tRAM, tLink, tRAM+tLink, (tRAM+tLink)/tLink),
		}}, nil
	},
}

// copyGBPerSec is the copy bandwidth beyond the caches (reads + writes, GB/s) the kept xla:cpu
// transfers carry: the rate of a memcpy into a reused buffer, which the staging copy is — not the
// sweep's largest copy, which pays fresh page faults (it swung the answer about 8× between runs).
func copyGBPerSec() (float64, error) {
	rs, err := predict.Kept(KeepTransfer, devices.CPU)
	if err != nil {
		return 0, err
	}
	best := 0.0
	for _, r := range rs {
		best = max(best, r.CeilingBytesPerSec/1e9)
	}
	return best, nil
}
