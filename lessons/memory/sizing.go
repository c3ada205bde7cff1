package memory

import (
	"github.com/gpu-course/whygpu/lessons/memory/sizing"
	"github.com/gpu-course/whygpu/pkg/model/memsize"
)

// Lesson09 is lesson 09's GPT at a micro-batch (the step this machine compiles).
func Lesson09(batch int) memsize.Setting {
	s, _ := sizing.Preset("lesson 09's GPT")
	s.MicroBatch = batch
	return s
}
