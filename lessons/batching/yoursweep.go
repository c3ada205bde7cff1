package batching

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/support/units"
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
// from it (live xla:cpu results only): the regime of the smallest batch by its time budget
// (regime.Budget.Classify, never by one noisy doubling), how much of that step a straight line
// through the smallest and the largest batch puts in a part that does not grow with the batch (the
// fixed cost per step the batch amortizes), and where the step first took twice its smallest batch's
// time.
func YourSweep(rs []results.Result, hidden int) string {
	cpu := liveCPU(rs)
	if len(cpu) < 2 {
		return fmt.Sprintf("No live %s sweep at hidden %d yet: run the sweep cell first.\n", devices.CPU, hidden)
	}
	var b strings.Builder
	lo, hi := cpu[0], cpu[len(cpu)-1]
	bl, bh := lo.Params["batch"], hi.Params["batch"]
	v := regime.Of(lo).Classify() // a budget above the time is no verdict (regime.CeilingTooLow)
	cached := v.CacheResident(lo.Bytes)
	if cached {
		// T_memory counts DRAM bandwidth; bytes that fit in the last-level cache may come from it.
		fmt.Fprintf(&b, "%s (measured live), hidden %d, batch %d: no verdict — its %s per step fit in this CPU's last-level cache, "+
			"so the DRAM roof is the wrong one: from the cache they move faster than the T_memory of %s (of the %s) assumes, "+
			"and a step reads and writes its weights several times (forward, weight gradient, update); T_compute %s.\n",
			devices.CPU, hidden, bl, units.Bytes(lo.Bytes), units.Duration(v.TMemory), units.Duration(v.TMeasured), units.Duration(v.TCompute))
	} else {
		fmt.Fprintf(&b, "%s (measured live), hidden %d, batch %d: %s.\n", devices.CPU, hidden, bl, v)
	}
	// t(B) = F + B·w through the two ends: F is the part of a step that does not grow with the batch.
	tl, th := lo.Seconds(), hi.Seconds()
	perSample := (th - tl) / float64(bh-bl)
	fixed := max(0, tl-float64(bl)*perSample)
	what := map[string]string{
		regime.Overhead: "since neither budget explains batch " + fmt.Sprint(bl) + ", mostly the call's fixed cost (dispatch and waiting)",
		regime.Memory:   "the weights' bytes, read once per step whatever the batch, and the call's fixed cost",
	}[v.Regime]
	if cached {
		what = "the weights' bytes, read and updated once per step whatever the batch (here from the cache), and the call's fixed cost"
	} else if what == "" {
		what = "the call's fixed cost and any bytes read once per step"
	}
	fmt.Fprintf(&b, "Batch %d did %.3g× the work of batch %d in %.3g× the time: a line through the two puts %.0f%% of batch %d's %s in a part that does not grow with the batch — %s — and the batch shares it among its samples.\n",
		bh, float64(bh)/float64(bl), bl, th/tl, 100*min(1, fixed/tl), bl, units.Duration(tl), what)
	if d, err := DoublingBatch(cpu); err == nil {
		fmt.Fprintf(&b, "The step first took twice its batch-%d time at batch %d: there the part that grows with the batch has caught up with the fixed part.\n", bl, d)
	} else {
		fmt.Fprintln(&b, err)
	}
	return b.String()
}
