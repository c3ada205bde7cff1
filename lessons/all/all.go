// Package all lists every lesson of the course and its experiments: Experiments is the list the
// programs that run all of them (`whygpu record`) are handed. Nothing registers itself at start-up;
// a lesson that is not listed here is not recorded.
//
// Lesson authors: one import and one Experiments line per lesson package, sorted; `whygpu new` adds
// both for you, and this package's test fails when a lesson package is missing here.
package all

import (
	"github.com/gpu-course/whygpu/lessons/batching"     // 03-batch-and-width
	"github.com/gpu-course/whygpu/lessons/bigpicture"   // 08-whole-picture
	"github.com/gpu-course/whygpu/lessons/capstone"     // 11-capstone
	"github.com/gpu-course/whygpu/lessons/datamovement" // 04-moving-data
	"github.com/gpu-course/whygpu/lessons/dataparallel" // 10-data-parallel
	"github.com/gpu-course/whygpu/lessons/feeding"      // 07-feeding-the-device
	"github.com/gpu-course/whygpu/lessons/memory"       // 06-memory
	"github.com/gpu-course/whygpu/lessons/precision"    // 05-precision
	"github.com/gpu-course/whygpu/lessons/race"         // 01-race
	"github.com/gpu-course/whygpu/lessons/roofline"     // 02-roofline
	"github.com/gpu-course/whygpu/lessons/setupcheck"   // 00-setup-check
	"github.com/gpu-course/whygpu/lessons/smallgpt"     // 09-small-gpt
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
)

// Experiments is every lesson's experiments, one list per lesson (experiments.Join makes them one
// list sorted by ID and refuses an ID twice).
var Experiments = []experiments.List{
	batching.Experiments,
	bigpicture.Experiments,
	capstone.Experiments,
	datamovement.Experiments,
	dataparallel.Experiments,
	feeding.Experiments,
	memory.Experiments,
	precision.Experiments,
	race.Experiments,
	roofline.Experiments,
	setupcheck.Experiments,
	smallgpt.Experiments,
}
