// Package all lists every lesson of the course with its experiments, recall decks and applied
// problems, in one place: Experiments is the list the programs that run all of them (`whygpu
// record`) are handed, Decks feeds the spaced-recall review, Problems the checks of every problem
// cell. Nothing registers itself at start-up; a lesson that is not listed here is not recorded.
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
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/teach/recall"
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

// Decks is every lesson's recall deck, in lesson order: the spaced-recall review that opens each
// lesson draws its cards from them (pkg/teach/recall's review.json, written by `go generate ./pkg/teach/recall`).
func Decks() []*recall.Deck {
	return []*recall.Deck{race.Deck, roofline.Deck, batching.Deck, datamovement.Deck, precision.Deck, memory.Deck,
		feeding.Deck, bigpicture.Deck, smallgpt.Deck, dataparallel.Deck, capstone.Deck}
}

// Problems is every lesson's applied problem, by the name a notebook cell uses
// (display.Problem(race.ProblemStepTime, answer)). Lesson authors: add yours here; lessons/all's
// tests check each (worked steps, no reveal before an attempt, a "run" hint when unmeasured) and fail
// a notebook cell showing a problem not listed, and `whygpu check` fails a notebook printing a
// problem's Formula above its cells.
func Problems() map[string]exercise.Problem {
	return map[string]exercise.Problem{
		"race.ProblemStepTime":         race.ProblemStepTime,
		"roofline.ProblemRidgeBatch":   roofline.ProblemRidgeBatch,
		"batching.ProblemSMFill":       batching.ProblemSMFill,
		"datamovement.ProblemPageable": datamovement.ProblemPageable,
		"precision.ProblemLossScale":   precision.ProblemLossScale,
		"memory.ProblemCheckpointFit":  memory.ProblemCheckpointFit,
		"feeding.ProblemWorkers":       feeding.ProblemWorkers,
		"bigpicture.ProblemDecode":     bigpicture.ProblemDecode,
		"smallgpt.ProblemStep":         smallgpt.ProblemStep,
		"dataparallel.ProblemHide":     dataparallel.ProblemHide,
		"capstone.ProblemDollars":      capstone.ProblemDollars,
	}
}
