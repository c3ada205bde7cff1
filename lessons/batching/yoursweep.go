package batching

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// liveCPU is rs's live xla:cpu results, sorted by batch.
func liveCPU(rs []results.Result) []results.Result {
	var out []results.Result
	for _, r := range rs {
		if r.Provenance.Device == devices.CPU && !r.Provenance.Recorded && r.Seconds() > 0 {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Params["batch"] < out[j].Params["batch"] })
	return out
}

// DoublingBatch is the smallest batch whose step takes at least twice the step at the smallest
// batch, among results of one device sorted or not; an error when the sweep never got there.
func DoublingBatch(rs []results.Result) (int, error) {
	rs = append([]results.Result(nil), rs...)
	sort.Slice(rs, func(i, j int) bool { return rs[i].Params["batch"] < rs[j].Params["batch"] })
	if len(rs) < 2 {
		return 0, fmt.Errorf("%s: need a batch sweep of at least two sizes", Lesson)
	}
	base := rs[0].Seconds()
	for _, r := range rs[1:] {
		if r.Seconds() >= 2*base {
			return r.Params["batch"], nil
		}
	}
	return 0, fmt.Errorf("%s: the step never took twice its batch-%d time up to batch %d: the answer is above the sweep (WHYGPU_SCALE=gpu sweeps further)",
		Lesson, rs[0].Params["batch"], rs[len(rs)-1].Params["batch"])
}

// YourSweep is what the learner's own batch sweep at this hidden width says, in sentences computed
// from it (live xla:cpu results only): the doubling test of lesson 01 on its first two batches, how
// much time the largest batch took for its multiple of the work, and where the step first took twice
// its smallest batch's time.
// nearlyFree is the time ratio under which a larger batch's extra samples count as nearly free.
const nearlyFree = 1.3

func YourSweep(rs []results.Result, hidden int) string {
	cpu := liveCPU(rs)
	if len(cpu) < 2 {
		return fmt.Sprintf("No live %s sweep at hidden %d yet: run the sweep cell first.\n", devices.CPU, hidden)
	}
	var b strings.Builder
	lo, next, hi := cpu[0], cpu[1], cpu[len(cpu)-1]
	grow := next.Seconds() / lo.Seconds()
	work := float64(next.Params["batch"]) / float64(lo.Params["batch"])
	verdict := "the extra samples were nearly free (the time budget of lesson 01 says which regime)"
	if grow >= nearlyFree {
		verdict = "the extra samples cost time: the work already sets it"
	}
	fmt.Fprintf(&b, "%s (measured live), hidden %d: batch %d → %d (%.3g× the work) took %.3g× the time — %s.\n",
		devices.CPU, hidden, lo.Params["batch"], next.Params["batch"], work, grow, verdict)
	fmt.Fprintf(&b, "Batch %d did %.3g× the work of batch %d in %.3g× the time: each weight read served every sample of the batch.\n",
		hi.Params["batch"], float64(hi.Params["batch"])/float64(lo.Params["batch"]), lo.Params["batch"], hi.Seconds()/lo.Seconds())
	if d, err := DoublingBatch(cpu); err == nil {
		fmt.Fprintf(&b, "The step first took twice its batch-%d time at batch %d: below it extra samples share the same weight reads and fixed costs, above it the arithmetic sets the time.\n", lo.Params["batch"], d)
	} else {
		fmt.Fprintln(&b, err)
	}
	return b.String()
}
