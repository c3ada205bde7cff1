package memory

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// The numbers of ProblemCheckpointFit: a 1.3B model on one 80 GB H100 whose activations, kept
// whole, would take 90 GB over its 24 layers; a checkpoint every 4th layer.
const (
	fitParams      = 1.3e9
	fitLayers      = 24
	fitActivations = 90e9 // bytes, all layers kept
	fitEvery       = 4
)

// ProblemCheckpointFit is lesson 06's applied problem: the whole step's memory of a 1.3B model
// trained with mixed-precision Adam when a checkpoint every 4th layer cuts the activations, set
// against an 80 GB H100 (datasheet GB).
var ProblemCheckpointFit = exercise.Problem{
	Key: "06/checkpoint-fit",
	Question: "A 1.3B-parameter model trains with Adam in mixed precision on one 80 GB H100. Kept whole, its " +
		"activations at the batch you want would take 90 GB, spread evenly over its 24 layers. With a checkpoint " +
		"every 4th layer, how many GB does the step hold at its peak (training state + activations)? Does it fit?",
	Unit:    "GB",
	Formula: "L/k + k",
	Hint:    "the training state does not depend on the batch: start from the bytes per parameter; then count how many layers' activations checkpointing keeps at once.",
	Solve: func() (exercise.Solution, error) {
		state := fitParams * float64(mixedAdam.Total())
		perLayer := fitActivations / fitLayers
		kept := (fitLayers+fitEvery-1)/fitEvery + fitEvery
		acts := float64(kept) * perLayer
		total := state + acts
		fits := "fits"
		if total > H100Bytes {
			fits = "does not fit"
		}
		return exercise.Solution{Value: total / 1e9, Steps: []string{
			fmt.Sprintf("Training state: 1.3e9 parameters × %d bytes (2 + 2 + 4 + 4 + 4) = %.1f GB, whatever the batch.", mixedAdam.Total(), state/1e9),
			fmt.Sprintf("Activations per layer: 90 GB ÷ %d = %.2f GB; without checkpointing the step would need %.1f GB: too much.", fitLayers, perLayer/1e9, (state+fitActivations)/1e9),
			fmt.Sprintf("A checkpoint every %d layers keeps %d ÷ %d = %d checkpoints plus the %d outputs of the segment being recomputed: %d layers' worth, %.1f GB.", fitEvery, fitLayers, fitEvery, fitLayers/fitEvery, fitEvery, kept, acts/1e9),
			fmt.Sprintf("Peak: %.1f + %.1f = %.1f GB against 80 GB: it %s, with %.1f GB left for the backward pass's temporaries.", state/1e9, acts/1e9, total/1e9, fits, (H100Bytes-total)/1e9),
		}}, nil
	},
}
