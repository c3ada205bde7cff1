package memory

import (
	"fmt"
	"strconv"

	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Gradient checkpointing: memory held at the peak against recomputed FLOPs (a model).

// Checkpoint is one gradient-checkpointing plan for a chain of layers: keep every k-th layer's
// output in the forward pass and recompute the others, one segment at a time, in the backward pass.
type Checkpoint struct {
	Every      int     // k: a checkpoint every k layers (1: keep everything, no checkpointing)
	Kept       int     // layer outputs held at the peak: ⌈L/k⌉ checkpoints + the k of the segment being recomputed
	Activation int64   // bytes of activations held at the peak
	ExtraFLOPs float64 // recomputation: the forward of every non-checkpoint layer, once more
	StepFLOPs  float64 // the whole step's FLOPs with the recomputation
}

// CheckpointPlans computes the plans for a chain of `layers` equal layers (a width×width matmul each)
// of w's batch and width, for each k in every: memory held at the peak against extra FLOPs. Model,
// not measurement: activations as Memory counts them, FLOPs as 2·B·w² per layer forward and 3×
// that per step.
func CheckpointPlans(w workloads.MLP, layers int, every []int) []Checkpoint {
	perLayer := int64(w.Batch) * int64(w.Hidden) * int64(w.Type.Size())
	fwd := 2 * float64(w.Batch) * float64(w.Hidden) * float64(w.Hidden)
	var out []Checkpoint
	for _, k := range every {
		if k < 1 {
			continue
		}
		c := Checkpoint{Every: k, StepFLOPs: 3 * fwd * float64(layers)}
		if k == 1 {
			c.Kept = layers
		} else {
			segs := (layers + k - 1) / k
			c.Kept = segs + k
			c.ExtraFLOPs = fwd * float64(layers-segs)
		}
		c.Activation = int64(c.Kept) * perLayer
		c.StepFLOPs += c.ExtraFLOPs
		out = append(out, c)
	}
	return out
}

// CheckpointTable formats CheckpointPlans for display.Table.
func CheckpointTable(w workloads.MLP, layers int, every []int) units.Table {
	var rows [][]string
	plans := CheckpointPlans(w, layers, every)
	for _, c := range plans {
		name := fmt.Sprintf("every %d layers", c.Every)
		if c.Every == 1 {
			name = "none (keep every output)"
		}
		rows = append(rows, []string{name, strconv.Itoa(c.Kept), units.BytesFixed(float64(c.Activation)),
			fmt.Sprintf("%.0f%%", 100*float64(c.Activation)/float64(plans[0].Activation)),
			fmt.Sprintf("+%.0f%%", 100*c.ExtraFLOPs/plans[0].StepFLOPs)})
	}
	return units.Table{Origins: []units.Origin{units.Formula("each plan's bytes kept and FLOPs recomputed, from the shapes")}, Header: []string{fmt.Sprintf("checkpoint (%d layers, batch %d, width %d)", layers, w.Batch, w.Hidden),
		"outputs held at peak", "activation memory (model)", "vs none", "extra step FLOPs (model)"}, Rows: rows}
}
