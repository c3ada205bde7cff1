package all

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/lessons/batching"
	"github.com/gpu-course/whygpu/lessons/capstone"
	"github.com/gpu-course/whygpu/lessons/datamovement"
	"github.com/gpu-course/whygpu/lessons/feeding"
	"github.com/gpu-course/whygpu/lessons/memory"
	"github.com/gpu-course/whygpu/lessons/precision"
	"github.com/gpu-course/whygpu/lessons/race"
	"github.com/gpu-course/whygpu/lessons/roofline"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// timed is a live xla:cpu result, quiet or with a neighbour using 70% of a core while it ran.
func timed(disturbed bool, workload string, params map[string]int) results.Result {
	d := results.Disturbance{Counted: true, OthersCores: 0.02}
	if disturbed {
		d.OthersCores = 0.7
	}
	return results.Result{Workload: workload, Label: workload, DType: "float32", Precision: "float32", FLOPs: 1e9, Bytes: 1e7,
		Params: params, CeilingFLOPS: 2e10, CeilingBytesPerSec: 1e10, PeakFLOPS: 5e10,
		Stats:      results.Stats{N: 5, Median: time.Millisecond, Min: time.Millisecond, P90: time.Millisecond, Disturbance: d},
		Provenance: results.Provenance{Device: devices.CPU, Run: results.RunID()}}
}

// lessonTable is a lesson table built from timed results, with how to build its input; the
// disturbed argument says which input is disturbed.
type lessonTable struct {
	name  string
	table func(rs []results.Result) units.Table
	make  func(disturbed func(i int) bool) []results.Result
}

// lessonTables lists every lesson table built from timed results (the disturbed-row and origin
// tests walk it).
func lessonTables(t *testing.T) []lessonTable {
	p := func(kv ...int) map[string]int {
		m := map[string]int{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[[]string{"batch", "hidden", "m", "n", "k", "side", "calls", "variant", "size", "fmas", "workers", "cores"}[kv[i]]] = kv[i+1]
		}
		return m
	}
	const batch, hidden, m, n, k, side, calls, variant, size, fmas = 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
	return []lessonTable{
		{"01 split", race.SplitTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "split", p(side, 8, calls, 64)), timed(d(1), "split", p(side, 64, calls, 1))}
		}},
		{"02 verdicts", roofline.VerdictTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "matmul", nil), timed(d(1), "layernorm", nil)}
		}},
		{"02 FMA", roofline.FMATable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "fma", p(fmas, 32)), timed(d(1), "fma", p(fmas, 32))}
		}},
		{"02 ridge batch", roofline.RidgeBatchTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "matmul", p(m, 1, k, 1024)), timed(d(1), "matmul", p(m, 64, k, 1024))}
		}},
		{"03 peak share", func(rs []results.Result) units.Table { return batching.PeakShareTable(rs) }, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "mlp-step", p(batch, 1, hidden, 512)), timed(d(1), "mlp-step", p(batch, 512, hidden, 512))}
		}},
		{"03 occupancy", func(rs []results.Result) units.Table { return batching.OccupancyTable(rs, 512) }, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "mlp-step", p(batch, 1, hidden, 512)), timed(d(1), "mlp-step", p(batch, 512, hidden, 512))}
		}},
		{"04 transfers", datamovement.TransferTable, func(d func(int) bool) []results.Result {
			small, large := timed(d(0), "transfer-h2d", nil), timed(d(1), "transfer-d2h", nil)
			return []results.Result{small, large}
		}},
		{"04 resident", datamovement.ResidentTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "resident", p(variant, 0)), timed(d(1), "resident", p(variant, 1))}
		}},
		{"04 sync", datamovement.SyncTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "train-loop", nil), timed(d(1), "train-loop", nil)}
		}},
		{"04 unsynced", datamovement.UnsyncedTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "matmul", nil), timed(d(1), "matmul", nil)}
		}},
		{"05 dtypes", precision.DTypeTable, func(d func(int) bool) []results.Result {
			a, b := timed(d(0), "matmul", nil), timed(d(1), "matmul", nil)
			b.Precision = "bfloat16"
			return []results.Result{a, b}
		}},
		{"05 mixed", precision.MixedTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "mlp", nil), timed(d(1), "mlp", nil)}
		}},
		{"05 matrix units", precision.UnitsTable, func(d func(int) bool) []results.Result {
			a, b := timed(d(0), "matmul", p(m, 64, k, 64, n, 64)), timed(d(1), "matmul-int8", p(m, 64, k, 64, n, 64))
			b.Precision = precision.Int8
			return []results.Result{a, b}
		}},
		{"05 serving", precision.ServingTable, func(d func(int) bool) []results.Result {
			a, b := timed(d(0), "matmul", p(m, 1, k, 64, n, 64)), timed(d(1), "matmul-int8", p(m, 1, k, 64, n, 64))
			b.Precision = precision.Int8
			return []results.Result{a, b}
		}},
		{"06 memory sweep", memory.SweepTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "mlp", p(batch, 1)), timed(d(1), "mlp", p(batch, 2))}
		}},
		{"06 update", memory.UpdateTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "mlp-part-optimizer", nil), timed(d(1), "mlp-part-optimizer", nil)}
		}},
		{"07 launch", func(rs []results.Result) units.Table { return feeding.LaunchTable(rs, 1e10) }, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "forward", p(calls, 1)), timed(d(1), "forward", p(calls, 4))}
		}},
		{"07 oversubscription", feeding.OverTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "matmul-jobs", nil), timed(d(1), "matmul-jobs", nil)}
		}},
		{"07 loader sweep", feeding.SweepTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "pipeline", nil), timed(d(1), "pipeline", nil)}
		}},
		{"07 fusion", feeding.FusionTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "chain", nil), timed(d(1), "chain", nil)}
		}},
		{"07 double the work", feeding.DoubleTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "w", p(size, 1)), timed(false, "w", p(size, 2)),
				timed(d(1), "v", p(size, 1)), timed(false, "v", p(size, 2))}
		}},
		{"07 step shares", feeding.SharesTable, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "mlp-part-matmul", nil), timed(d(1), "mlp-part-elementwise", nil)}
		}},
		{"11 plan", func(rs []results.Result) units.Table {
			tb, err := capstone.PlanTable(capstone.Run{Params: 1.25e8, Tokens: 1e10}, rs)
			if err != nil {
				t.Fatal(err)
			}
			return tb
		}, func(d func(int) bool) []results.Result {
			return []results.Result{timed(d(0), "step", nil), timed(d(1), "step", nil)}
		}},
	}
}

// Every lesson table built from timed results marks the rows whose measurement was disturbed (with
// one footnote saying what to do) and never marks a quiet one.
func TestLessonTablesMarkDisturbedRows(t *testing.T) {
	for _, tc := range lessonTables(t) {
		t.Run(tc.name, func(t *testing.T) {
			quiet := tc.table(tc.make(func(int) bool { return false })).String()
			if strings.Contains(quiet, units.DisturbedMark) {
				t.Errorf("quiet measurements are marked:\n%s", quiet)
			}
			marked := tc.table(tc.make(func(i int) bool { return i == 1 })).String()
			if strings.Count(marked, units.DisturbedMark+" (1)") < 1 || !strings.Contains(marked, "rerun when the machine is quiet") ||
				!strings.Contains(marked, "70% of a core") {
				t.Errorf("a disturbed measurement is not marked:\n%s", marked)
			}
			if strings.Count(marked, "\n") < strings.Count(quiet, "\n") {
				t.Errorf("marking dropped rows:\n%s\nvs quiet:\n%s", marked, quiet)
			}
		})
	}
}
