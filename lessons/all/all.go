// Package all imports every lesson package, so that their init functions register the lessons'
// experiments (package experiments) in the programs that run all of them: `whygpu record`.
//
// Lesson authors: one line per lesson package, sorted; `whygpu new` adds it for you, and this
// package's test fails when a lesson package is missing here.
package all

import (
	_ "github.com/gpu-course/whygpu/lessons/batching"     // 03-batch-and-width
	_ "github.com/gpu-course/whygpu/lessons/bigpicture"   // 08-whole-picture
	_ "github.com/gpu-course/whygpu/lessons/capstone"     // 11-capstone
	_ "github.com/gpu-course/whygpu/lessons/datamovement" // 04-moving-data
	_ "github.com/gpu-course/whygpu/lessons/dataparallel" // 10-data-parallel
	_ "github.com/gpu-course/whygpu/lessons/feeding"      // 07-feeding-the-device
	_ "github.com/gpu-course/whygpu/lessons/memory"       // 06-memory
	_ "github.com/gpu-course/whygpu/lessons/precision"    // 05-precision
	_ "github.com/gpu-course/whygpu/lessons/race"         // 01-race
	_ "github.com/gpu-course/whygpu/lessons/roofline"     // 02-roofline
	_ "github.com/gpu-course/whygpu/lessons/setupcheck"   // 00-setup-check
	_ "github.com/gpu-course/whygpu/lessons/smallgpt"     // 09-small-gpt
)
