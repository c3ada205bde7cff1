package memory

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
	"github.com/gpu-course/whygpu/pkg/teach/recall"
)

// PredictUpdateRate: the rate Adam's update streams its bytes at on this CPU.
var PredictUpdateRate = predict.Question{
	Key:  "06/adam-update-gbs",
	Text: "Adam's update alone, on a few million float32 parameters on xla:cpu: at how many GB/s will it read and write its 28 bytes per parameter? (GB/s)",
	Unit: "GB/s",
	Answer: func() (float64, error) {
		rs, err := predict.Kept(KeepUpdate, devices.CPU)
		if err != nil {
			return 0, err
		}
		rate, err := measuredRate(rs)
		return rate / 1e9, err
	},
	Why: "About 0.5 FLOP per byte is far below any ridge point, so bandwidth should set the update's time: the measured copy ceiling is its roof. Far below that ceiling, the time went elsewhere (fresh memory's page faults, other overhead, or a disturbed run) — the note under the table says which.",
}

// PredictUpdateShare asks how large Adam's update is next to the compute of a whole training step
// on an H200: the update's 28 bytes per parameter at the HBM bandwidth against 6 FLOPs per parameter
// per token at the bf16 dense peak, a million tokens a step (a model: both at datasheet rates).
var PredictUpdateShare = predict.Question{
	Key:   "06/gpu-update-share",
	Model: "H200 datasheet peaks",
	Text:  "GPU (answered by the H200 datasheet, a model): training a 7B model with a million tokens per step, the Adam update streams 28 bytes per parameter through HBM. Its time is what percentage of the step's matmul time at the bf16 peak? (%)",
	Unit:  "%",
	Answer: func() (float64, error) {
		g := datasheet.H200
		ridge := g.Peak("bfloat16") / g.Bandwidth() // FLOPs the GPU does in the time it moves one byte
		return 100 * 28 * ridge / (6 * 1e6), nil    // (28 bytes ÷ bandwidth) ÷ (6·tokens FLOPs ÷ peak), per parameter
	},
	Why: updateShareWhy(),
}

// The recall cards of the section "The optimizer update", the notebook's last before the recap:
// listed last in Deck so the deck's order stays the notebook's.
var updateSection = recall.Section{ID: "update", Title: "The optimizer update", Cards: []recall.Card{
	{ID: "bytes", Question: "How many bytes per parameter does Adam's update move in float32, and why is it memory-bound?",
		Answer: "28: it reads the weight, the gradient and both moments and writes the weight and both moments (7 × 4 bytes) for about 14 FLOPs — 0.5 FLOP per byte, far below any machine's ridge, so its time is bytes ÷ bandwidth."},
	{ID: "gpu", Question: "Why does the GPU's bandwidth keep the update from becoming a bottleneck?",
		Answer: "The update is bytes ÷ bandwidth: HBM streams several TB/s, so even a 7 B model's ~200 GB of update traffic is tens of milliseconds — a fraction of a percent of a step whose matrix products take seconds. At a CPU's tens of GB/s the same bytes take seconds."},
	{ID: "offload", Question: "In optimizer offload, what crosses the host link each step, and what stays on the CPU?",
		Answer: "The bf16 gradients go down and the updated bf16 weights come back: about 2 bytes per parameter each way. The float32 master weights and Adam's moments (12 bytes per parameter) stay in host memory, where the CPU runs the update at its own memory bandwidth. NVLink-C2C moves those bytes about 7× faster than a PCIe Gen5 slot."},
}}

// updateShareWhy reconciles the prediction's answer (both budgets at the datasheet peaks) with the
// scaled table's band (the step at the training MFU, the update at the bandwidth the model reaches).
func updateShareWhy() string {
	g := datasheet.H200
	ridge := g.Peak("bfloat16") / g.Bandwidth()
	lo, hi := updateShareBand(ScaledModels[len(ScaledModels)-1])
	full := 100 * 28 * ridge / 6e6
	band := fmt.Sprintf("The table above runs the step at a realistic MFU and the update at the bandwidth the model reaches: %.2g%%–%.2g%%", lo, hi)
	if hi < full {
		band += ", smaller, because the lower MFU lengthens the step more than the update"
	}
	return fmt.Sprintf("Per parameter the update moves 28 bytes while the step does 6 FLOPs per token, 6 million here; at the H200's ridge of %.0f FLOPs per byte the bytes cost as much as 28 × %.0f ≈ %.0f FLOPs, %.2g%% of the step with both at full peak. "+
		"%s. The parameter count cancels: it holds for any model size.", ridge, ridge, 28*ridge, full, band)
}
