// Package all imports every lesson package, so that their init functions register the lessons'
// experiments (package experiments) in the programs that run all of them: `whygpu record`.
//
// Lesson authors: one line per lesson package, sorted; `whygpu new` adds it for you, and this
// package's test fails when a lesson package is missing here.
package all

import (
	_ "github.com/gpu-course/whygpu/lessons/setupcheck" // 00-setup-check
)
