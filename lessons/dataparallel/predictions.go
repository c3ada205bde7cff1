package dataparallel

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// LinkRatio is how many times longer a ring all-reduce of bytes over n GPUs takes on a 100 Gb/s
// network port than over the H200's NVLink, at the midpoints of the link models' bands.
func LinkRatio(bytes float64, n int) float64 {
	mid := func(l gpumodel.Link) float64 {
		lo, hi := l.RingAllReduce(bytes, n)
		return (lo + hi).Seconds() / 2
	}
	return mid(gpumodel.Net100G) / mid(gpumodel.NVLinkH200)
}

// Predictions of lesson 10.
var (
	// PredictAllReduce: how the all-reduce's time grows over the sweep's sizes.
	PredictAllReduce = predict.Question{
		Key:  "10/allreduce-growth",
		Text: "The gradient grows 4096× over the sweep (4 KiB → 16 MiB). How many times longer will the all-reduce take? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.KeptAny(KeepAllReduce)
			if err != nil {
				return 0, err
			}
			lo, hi, err := predict.Ends(rs, "values")
			if err != nil {
				return 0, err
			}
			return hi.Seconds() / lo.Seconds(), nil
		},
		Why: "Small messages cost a fixed synchronization time, large ones time in proportion to their bytes: the growth is far less than 4096× until the bytes dominate.",
	}
	// PredictLinks: the same all-reduce over a 100 Gb/s network port and over NVLink (the GPU model's
	// links, band midpoints).
	PredictLinks = predict.Question{
		Key:  "10/network-vs-nvlink",
		Text: "GPU (answered by the GPU model's links, a model): a 7B model's float32 gradients (28 GB) all-reduced over 8 GPUs — how many times longer over a 100 Gb/s network port than over NVLink? (×)",
		Unit: "×",
		// Answered from the link models (the table before the reveal shows both).
		Answer: func() (float64, error) { return LinkRatio(28e9, 8), nil },
		Model:  "GPU model",
		Why:    "Model (gpumodel's links): 12.5 GB/s against 450 GB/s each way is a factor of 36 in bandwidth; a large all-reduce is all bandwidth, so its time follows. That is ring against ring, the table's columns; on NVLink NCCL would pick NVLS for a message this large (the note under the table), which widens the gap further.",
	}
	// PredictAdam: Adam's state next to the parameters.
	PredictAdam = predict.Question{
		Key:  "10/adam-state-ratio",
		Text: "How many times the parameters' bytes does GoMLX allocate for Adam's state? (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.KeptAny(KeepMemory)
			if err != nil {
				return 0, err
			}
			if len(rs) == 0 {
				return 0, fmt.Errorf("dataparallel: no memory measurement kept: run the memory cell first")
			}
			return AdamRatio(rs[0])
		},
		Why: "Adam keeps two float32 moments per parameter (plus a step counter): twice the model, before gradients and activations.",
	}
)

// MineAdam is lesson 10's recall card from the learner's own measurement of Adam's state.
var MineAdam = predict.Mine("10/mine-adam", PredictAdam,
	func(r float64) string {
		return fmt.Sprintf("You measured Adam's state at %s× the parameters. For 1 billion float32 parameters, how much do parameters, gradients and Adam's state take on each of 8 devices, replicated and with ZeRO-3 / FSDP?", predict.Num(r))
	},
	func(r float64) string {
		total := (2 + r) * 4 // GB: parameters 4 GB, gradients 4 GB, Adam r × 4 GB
		return fmt.Sprintf("(4 + 4 + %s × 4) GB ≈ %s GB replicated on every device; sharded over 8: ≈ %s GB each.", predict.Num(r), predict.Num(total), predict.Num(total/8))
	})
