package train

import (
	"fmt"
	"strings"
	"time"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	mltrain "github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/ml/train/loss"
	"github.com/gomlx/gomlx/ml/train/optimizer"
	"github.com/gomlx/gomlx/support/exceptions"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/workloads"
	"github.com/gpu-course/whygpu/pkg/workloads/gpt"
)

// GPTTrainer trains a GPT on one device: parameters and Adam's moments live in a GoMLX model.Store
// and stay on the device between steps.
type GPTTrainer struct {
	Config  gpt.GPT
	dev     *devices.Device
	store   *model.Store
	trainer *mltrain.Trainer
	logits  *model.Exec
	steps   int
	// Compile is how long the first step took (graph building and XLA compilation included).
	Compile time.Duration
}

// NewGPTTrainer checks the configuration and that a step fits in dev's memory, and prepares the
// model (its variables are created and compiled on the first Step).
func NewGPTTrainer(dev *devices.Device, c gpt.GPT) (*GPTTrainer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := c.CheckStepFits(dev); err != nil {
		return nil, err
	}
	return newGPTTrainer(dev, c)
}

// newGPTTrainer builds the trainer of a valid c without checking that a step fits.
func newGPTTrainer(dev *devices.Device, c gpt.GPT) (*GPTTrainer, error) {
	store := model.NewStore()
	if err := store.SetRNGStateFromSeed(c.Seed); err != nil {
		return nil, err
	}
	opt := optimizer.Adam().LearningRate(c.LearningRate()).Done()
	t := &GPTTrainer{Config: c, dev: dev, store: store}
	err := exceptions.TryCatch[error](func() {
		t.trainer = mltrain.NewTrainer(dev.Backend(), store, c.Logits, loss.SparseCategoricalCrossEntropyLogits, opt, nil, nil)
	})
	if err != nil {
		return nil, workloads.DeviceError("train", err, "building %s", c)
	}
	return t, nil
}

// Steps is how many steps have run.
func (t *GPTTrainer) Steps() int { return t.steps }

// Step runs one training step on Batch×Context input tokens and their next-token targets (flat,
// row-major) and returns the mean cross-entropy loss in nats per token, read back from the device.
func (t *GPTTrainer) Step(inputs, targets []int32) (float64, error) {
	c := t.Config
	if len(inputs) != c.Tokens() || len(targets) != c.Tokens() {
		return 0, fmt.Errorf("train: %s step needs %d input and target tokens, got %d and %d", c, c.Tokens(), len(inputs), len(targets))
	}
	start := time.Now()
	batch := mltrain.Batch{
		Inputs: []*tensors.Tensor{tensors.FromFlatDataAndDimensions(inputs, c.Batch, c.Context)},
		Labels: []*tensors.Tensor{tensors.FromFlatDataAndDimensions(targets, c.Batch, c.Context, 1)},
	}
	metrics, err := t.trainer.TrainStep(batch)
	if err != nil {
		return 0, workloads.DeviceError("train", err, "%s step", c)
	}
	var lossValue float64
	err = exceptions.TryCatch[error](func() {
		lossValue = float64(tensors.ToScalar[float32](metrics[0]))
	})
	for _, m := range metrics {
		_ = m.FinalizeAll()
	}
	if err != nil {
		return 0, workloads.DeviceError("train", err, "%s reading the loss", c)
	}
	if t.steps == 0 {
		t.Compile = time.Since(start)
	}
	t.steps++
	return lossValue, nil
}

// StoredParams is the number of trainable parameters the model actually created (GoMLX's count of
// the variables under the model's scope), 0 before the first step.
func (t *GPTTrainer) StoredParams() int64 {
	return int64(t.store.Scope("/gpt").NumParameters())
}

// Greedy continues prompt by n tokens, each the most likely next token given the last Context
// tokens. The prompt must be 1…Context tokens long.
func (t *GPTTrainer) Greedy(prompt []int32, n int) ([]int32, error) {
	c := t.Config
	if len(prompt) == 0 {
		return nil, fmt.Errorf("train: Greedy needs a prompt of at least one token")
	}
	if len(prompt) > c.Context {
		return nil, fmt.Errorf("train: a prompt of %d tokens is %w of %d tokens (it was trained on %d-token windows)",
			len(prompt), gpt.ErrContextTooLong, c.Context, c.Context)
	}
	if t.steps == 0 {
		return nil, fmt.Errorf("train: train the model first (no step has run)")
	}
	if t.logits == nil {
		exec, err := model.NewExec(t.dev.Backend(), t.store, c.NextToken)
		if err != nil {
			return nil, workloads.DeviceError("train", err, "compiling the sampler")
		}
		t.logits = exec
	}
	seq := append([]int32(nil), prompt...)
	window := make([]int32, c.Context)
	for range n {
		start := max(0, len(seq)-c.Context)
		copy(window, seq[start:])
		last := len(seq) - start - 1
		for i := last + 1; i < c.Context; i++ {
			window[i] = 0
		}
		out, err := t.logits.Exec(tensors.FromFlatDataAndDimensions(window, 1, c.Context), int32(last))
		if err != nil {
			return nil, workloads.DeviceError("train", err, "sampling")
		}
		flat, err := tensors.CopyFlatData[int32](out[0])
		if err != nil || len(flat) == 0 {
			return nil, workloads.DeviceError("train", err, "reading a sample")
		}
		seq = append(seq, flat[0])
	}
	return seq[len(prompt):], nil
}

// StateBytes is what GoMLX actually allocated for the model's state, read from its variable store
// after the first step: the model's parameters (everything under the model's scope) and the
// optimizer's (Adam's moments, its step counter and learning rate). Both 0 before the first step.
func (t *GPTTrainer) StateBytes() (params, optimizer int64) {
	for v := range t.store.IterVariables() {
		b := v.Shape().ByteSize()
		if strings.HasPrefix(v.Scope(), "/gpt") {
			params += int64(b)
		} else if v.Scope() != "/" || !strings.Contains(v.Name(), "rng") {
			optimizer += int64(b)
		}
	}
	return params, optimizer
}
