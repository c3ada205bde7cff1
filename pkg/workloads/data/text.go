package data

import (
	"fmt"
	"math/rand/v2"
)

// TextBatches cuts random windows out of a token sequence: each batch is batch windows of context
// tokens and the same windows shifted by one as targets.
type TextBatches struct {
	tokens         []int32
	batch, context int
	rng            *rand.Rand
}

// NewTextBatches draws batches of batch windows of context tokens from tokens (at least context+1 of
// them) with a seeded source.
func NewTextBatches(tokens []int32, batch, context int, seed uint64) (*TextBatches, error) {
	if len(tokens) <= context {
		return nil, fmt.Errorf("data: a text of %d tokens is too short for %d-token windows", len(tokens), context)
	}
	return &TextBatches{tokens: tokens, batch: batch, context: context, rng: rand.New(rand.NewPCG(seed, 0x5eed))}, nil
}

// Next returns the next batch's inputs and targets.
func (b *TextBatches) Next() (inputs, targets []int32) {
	s := b.context
	inputs = make([]int32, 0, b.batch*s)
	targets = make([]int32, 0, b.batch*s)
	for range b.batch {
		at := b.rng.IntN(len(b.tokens) - s)
		inputs = append(inputs, b.tokens[at:at+s]...)
		targets = append(targets, b.tokens[at+1:at+s+1]...)
	}
	return inputs, targets
}
