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
		"staging buffer, an ordinary copy in RAM: take the fastest host→device rate your sweep measured from 1 MiB up (printed under its table: the staging buffer " +
		"is reused, so it pays no fresh page faults). Assume the two copies do not overlap (the driver actually overlaps them in chunks). " +
		"How many seconds does the pageable upload take? (s)",
	Unit:    "s",
	Formula: "14 GB ÷ RAM rate + 14 GB ÷ 64 GB/s",
	Hint:    "Two copies one after the other: the bytes through RAM at your measured rate, then over the link. Each is bytes ÷ bandwidth.",
	Solve: func() (exercise.Solution, error) {
		ram, err := stagingGBPerSec()
		if err != nil {
			return exercise.Solution{}, err
		}
		if ram <= 0 {
			return exercise.Solution{}, fmt.Errorf("%s: no host→device bandwidth kept on %s: run the transfer cell first", Lesson, devices.CPU)
		}
		link := datasheet.H200.PCIeBytes
		tLink, tRAM := modelBytes/link, modelBytes/(ram*1e9)
		return exercise.Solution{Value: tLink + tRAM, Steps: []string{
			fmt.Sprintf("Pinned: 14 GB ÷ %.0f GB/s = %.2f s, the link's time alone.", link/1e9, tLink),
			fmt.Sprintf("Staging copy in RAM at your fastest measured rate from 1 MiB up, %.3g GB/s: 14 GB ÷ %.3g GB/s = %.2f s.", ram, ram, tRAM),
			fmt.Sprintf("Pageable, not overlapped: %.2f + %.2f = %.2f s, %.1f× the pinned upload. (A driver can pipeline the two in chunks, so a real pageable copy may land between the two figures.)", tRAM, tLink, tRAM+tLink, (tRAM+tLink)/tLink),
		}}, nil
	},
}

// stagingFrom is the smallest copy whose rate stands for the driver's staging memcpy: below it a
// copy is mostly its fixed cost.
const stagingFrom = 1 << 20

// stagingGBPerSec is the fastest host→device bandwidth kept on xla:cpu among copies of stagingFrom
// bytes or more: the staging buffer is reused, so its rate is a warm memcpy's, not the largest
// copy's into fresh pages (which swung the answer about 8× between runs).
func stagingGBPerSec() (float64, error) {
	rs, err := predict.Kept(KeepTransfer, devices.CPU)
	if err != nil {
		return 0, err
	}
	best := 0.0
	for _, r := range rs {
		if r.Workload == "transfer-h2d" && r.Bytes >= stagingFrom {
			best = max(best, r.GBPerSec())
		}
	}
	return best, nil
}
