package capstone

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// Rental is the capstone problem's job: a run on GPUs at a sustained share of the bf16 peak, paid
// per GPU-hour.
type Rental struct {
	Run
	GPU     datasheet.GPU
	GPUs    int
	MFU     float64
	PerHour float64 // dollars per GPU-hour, declared
}

// ProblemRental is a 1.3 B-parameter model on 26 B tokens (20 per parameter) on 8 H100s at 40% MFU,
// at a declared $2.50 per GPU-hour.
var ProblemRental = Rental{Run: Run{Params: 1.3e9, Tokens: 26e9}, GPU: datasheet.H100, GPUs: 8, MFU: 0.4, PerHour: 2.5}

// GPUHours is the run's FLOPs over one GPU's sustained rate, in hours: the same on any number of GPUs
// when the run scales perfectly.
func (r Rental) GPUHours() float64 {
	rate := r.MFU * r.GPU.Ceilings.Peak("bfloat16")
	return r.FLOPs() / rate / 3600
}

// ProblemDollars is the capstone's applied problem: a run's GPU-hours and dollars from its size, a
// datasheet and a declared price.
var ProblemDollars = exercise.Register(exercise.Problem{
	Key: "11/run-dollars",
	Question: fmt.Sprintf("You rent %d %s GPUs at $%.2f per GPU-hour (a declared price, not a quote) to train a %.1f B-parameter model on %.0f B tokens. "+
		"A whole training step sustains %.0f%% of the %s's %.0f TFLOP/s dense bf16 peak on each GPU, and the run scales perfectly over the %d. What does the run cost, in dollars?",
		ProblemRental.GPUs, ProblemRental.GPU.Short, ProblemRental.PerHour, ProblemRental.Params/1e9, ProblemRental.Tokens/1e9,
		100*ProblemRental.MFU, ProblemRental.GPU.Short, ProblemRental.GPU.Ceilings.Peak("bfloat16")/1e12, ProblemRental.GPUs),
	Unit:      "dollars",
	Tolerance: 0.1,
	Formula:   "GPU-hours × the price",
	Hint:      "Start from the run's FLOPs (lesson 08), then one GPU's sustained rate. Does the number of GPUs change the GPU-hours you pay for?",
	Solve: func() (exercise.Solution, error) {
		r := ProblemRental
		rate := r.MFU * r.GPU.Ceilings.Peak("bfloat16")
		gh := r.GPUHours()
		return exercise.Solution{Value: gh * r.PerHour, Steps: []string{
			fmt.Sprintf("FLOPs: 6 × %.1f × 10⁹ × %.0f × 10⁹ = %.3g", r.Params/1e9, r.Tokens/1e9, r.FLOPs()),
			fmt.Sprintf("one GPU's rate: %.0f%% × %.0f TFLOP/s = %.0f TFLOP/s", 100*r.MFU, r.GPU.Ceilings.Peak("bfloat16")/1e12, rate/1e12),
			fmt.Sprintf("GPU-hours: %.3g ÷ %.3g FLOP/s ÷ 3600 = %.0f GPU-hours — on %d GPUs, %.1f hours of wall time each, the same GPU-hours", r.FLOPs(), rate, gh, r.GPUs, gh/float64(r.GPUs)),
			fmt.Sprintf("dollars: %.0f GPU-hours × $%.2f = $%.0f; at 20%% MFU it would cost twice that", gh, r.PerHour, gh*r.PerHour),
		}}, nil
	},
})
