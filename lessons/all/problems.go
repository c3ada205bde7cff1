package all

import (
	"github.com/gpu-course/whygpu/lessons/batching"
	"github.com/gpu-course/whygpu/lessons/bigpicture"
	"github.com/gpu-course/whygpu/lessons/capstone"
	"github.com/gpu-course/whygpu/lessons/datamovement"
	"github.com/gpu-course/whygpu/lessons/dataparallel"
	"github.com/gpu-course/whygpu/lessons/feeding"
	"github.com/gpu-course/whygpu/lessons/memory"
	"github.com/gpu-course/whygpu/lessons/precision"
	"github.com/gpu-course/whygpu/lessons/race"
	"github.com/gpu-course/whygpu/lessons/roofline"
	"github.com/gpu-course/whygpu/lessons/smallgpt"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

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
