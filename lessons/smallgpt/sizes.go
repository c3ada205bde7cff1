package smallgpt

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// Contexts is a context sweep the learner writes in a cell: the model's width and depth and the
// sequence lengths to time (tokens per step, heads and vocabulary stay the lesson's).
type Contexts struct {
	Embed   int   // model width; a multiple of the lesson's 4 heads
	Layers  int   // transformer blocks
	Lengths []int // sequence lengths, in the order to time them
}

// Limits of Contexts, checked before anything is compiled or allocated.
const (
	MaxSweepEmbed   = 1024
	MaxSweepLayers  = 12
	MaxSweepLength  = 2048 // attention's scores grow with its square
	MaxSweepLengths = 8
)

// Validate says why a sweep is refused: no length, too many, a length, width or depth out of range,
// a width the heads do not divide.
func (c Contexts) Validate() error {
	heads := Config(experiments.Laptop).Heads
	if err := experiments.CheckPoints(Lesson, "sequence length", len(c.Lengths), MaxSweepLengths); err != nil {
		return err
	}
	switch {
	case c.Embed < heads || c.Embed > MaxSweepEmbed || c.Embed%heads != 0:
		return fmt.Errorf("%s: width %d refused: use a multiple of the %d heads in %d…%d", Lesson, c.Embed, heads, heads, MaxSweepEmbed)
	case c.Layers < 1 || c.Layers > MaxSweepLayers:
		return fmt.Errorf("%s: %d layers refused: use 1…%d", Lesson, c.Layers, MaxSweepLayers)
	}
	for _, s := range c.Lengths {
		if s < 2 || s > MaxSweepLength {
			return fmt.Errorf("%s: sequence length %d refused before anything is allocated: use 2…%d (one head's attention scores alone are s² = %.3g values per sequence)",
				Lesson, s, MaxSweepLength, float64(s)*float64(s))
		}
	}
	return nil
}

// SweepContexts times a few training steps at each of the learner's lengths on the default device
// — SweepOn with the lesson's model at the cell's width and depth.
func SweepContexts(c Contexts, progress func(done, total int, format string, args ...any)) ([]results.Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	dev, err := devices.Default()
	if err != nil {
		return nil, err
	}
	g := Config(experiments.Laptop)
	g.Embed, g.Layers = c.Embed, c.Layers
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return SweepOn(dev, g, c.Lengths, progress)
}
