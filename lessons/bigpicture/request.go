package bigpicture

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Request is an inference request the learner writes in a cell: how many samples arrive together
// and the served MLP's width and depth (64 inputs, 10 outputs, as SmallMLP).
type Request struct {
	Batch  int // samples answered by one forward pass
	Hidden int // hidden width
	Depth  int // hidden layers
}

// Limits of a Request, checked before anything is compiled or allocated.
const (
	MaxRequestBatch  = 65536
	MaxRequestHidden = 8192
	MaxRequestDepth  = 16
)

// forward is the request's forward pass.
func (q Request) forward() workloads.MLPForward {
	return workloads.MLPForward{Batch: q.Batch, In: SmallMLP.In, Hidden: q.Hidden, Out: SmallMLP.Out, Depth: q.Depth}
}

// Validate says why a request is refused: a batch, width or depth out of range.
func (q Request) Validate() error {
	switch {
	case q.Batch < 1 || q.Batch > MaxRequestBatch:
		return fmt.Errorf("%s: batch %d refused before anything is allocated: use 1…%d (its activations alone would be %d × %d float32 values = %.3g GB per layer)",
			Lesson, q.Batch, MaxRequestBatch, q.Batch, q.Hidden, float64(q.Batch)*float64(q.Hidden)*4/1e9)
	case q.Hidden < 1 || q.Hidden > MaxRequestHidden:
		return fmt.Errorf("%s: hidden width %d refused: use 1…%d", Lesson, q.Hidden, MaxRequestHidden)
	case q.Depth < 1 || q.Depth > MaxRequestDepth:
		return fmt.Errorf("%s: depth %d refused: use 1…%d hidden layers", Lesson, q.Depth, MaxRequestDepth)
	}
	return nil
}

// InferenceAt times the learner's request on every XLA device here, as InferenceHere times
// SmallMLP (without the recordings, which are at SmallMLP's size).
func InferenceAt(q Request) ([]results.Result, error) {
	if err := q.Validate(); err != nil {
		return nil, err
	}
	return experiments.LiveOnEachDevice(func(d *devices.Device) ([]results.Result, error) {
		r, err := inferenceOf(d, q.forward())
		if err != nil {
			return nil, err
		}
		return []results.Result{r}, nil
	})
}
