package feeding

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// ReadWorkers sets each live run of the loader sweep against the loader model with cores to spare
// (Fed), so the notebook prints what the prose used to assert before the sweep ran.
func ReadWorkers(rs []results.Result) string {
	var parts []string
	for _, r := range rs {
		if r.Provenance.Recorded {
			continue
		}
		step := time.Duration(metric(r, ParamStepUS) * 1e3)
		cost := time.Duration(metric(r, ParamCostUS) * 1e3)
		_, model := Fed(step, cost, r.Params[ParamWorkers])
		parts = append(parts, fmt.Sprintf("%d worker(s) %.0f%% (model %.0f%%)", r.Params[ParamWorkers], metric(r, ParamUtilPM)/10, 100*model))
	}
	if len(parts) == 0 {
		return "No live loader sweep kept: run the sweep cell above first."
	}
	return "Device busy, yours against the model with cores to spare: " + strings.Join(parts, ", ") + "."
}

// ReadShares says, from the kept step parts, the matmuls' share of the FLOPs and of the time, and
// the whole step's time against the sum of its parts.
func ReadShares(rs []results.Result) string {
	shares, step, dev := Shares(rs)
	var mm *Share
	sum := 0.0
	for i, s := range shares {
		sum += s.Seconds
		if s.Part == string(workloads.PartMatMuls) {
			mm = &shares[i]
		}
	}
	if mm == nil || sum == 0 {
		return "No step parts kept: run the op-class cell above first."
	}
	s := fmt.Sprintf("Your %s: the matmuls do %.0f%% of the FLOPs in %.0f%% of the parts' time; the other classes %.0f%% of the FLOPs in %.0f%% of the time.",
		dev, 100*mm.FLOPs, 100*mm.Time, 100*(1-mm.FLOPs), 100*(1-mm.Time))
	if step.Seconds() > 0 {
		s += fmt.Sprintf(" The whole step, one executable, took %.0f%% of the parts' sum.", 100*step.Seconds()/sum)
	}
	return s
}
