package race

import (
	"strings"
	"testing"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// fakeHook keeps hook results as a CPU at 50 GFLOP/s and 10 GB/s would measure them.
func fakeHook(t *testing.T) []results.Result {
	t.Helper()
	var rs []results.Result
	for i, w := range DefaultHook().Workloads() {
		sec := max(w.FLOPs()/50e9, w.Bytes()/10e9) * 1.2
		d := time.Duration(sec * float64(time.Second))
		rs = append(rs, results.Result{Workload: w.Name(), Label: w.String(), FLOPs: w.FLOPs(), Bytes: w.Bytes(),
			Params: map[string]int{ParamShape: i / 3, ParamChange: i % 3}, Stats: results.Stats{N: 5, Median: d, Min: d, P90: d, Mean: d},
			CeilingFLOPS: 50e9, CeilingBytesPerSec: 10e9, Provenance: results.Provenance{Device: devices.CPU, Run: results.RunID(), Date: time.Now()}})
	}
	if err := results.Keep(KeepHook, rs); err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestHookReadsTheRegime(t *testing.T) {
	t.Setenv("WHYGPU_CACHE", t.TempDir())
	if _, err := PredictHookFLOPs.Answer(); err == nil || !strings.Contains(err.Error(), "run") {
		t.Errorf("nothing kept: %v", err)
	}
	if a := ProblemStepTime.CheckAnswer(1); a.Status != exercise.Unsolved || !strings.Contains(a.Err.Error(), "run") {
		t.Errorf("problem with nothing kept: %v %v", a.Status, a.Err)
	}
	rs := fakeHook(t)
	moves := HookMoves(rs)
	for _, want := range []string{"Heavy in bytes: twice the FLOPs took 1.00× the time, twice the bytes 2.00×", "the bytes set it", "Heavy in FLOPs", "the arithmetic sets it", "50 GFLOP/s"} {
		if !strings.Contains(moves, want) {
			t.Errorf("HookMoves lacks %q:\n%s", want, moves)
		}
	}
	noisy := append([]results.Result(nil), rs...)
	noisy[5].Stats.Disturbance = results.Disturbance{Counted: true, OthersCores: 1.1, Who: "go 80%"}
	if m := HookMoves(noisy); !strings.Contains(m, "Heavy in FLOPs: no reading") || strings.Contains(m, "the arithmetic sets it") || !strings.Contains(m, "the bytes set it") {
		t.Errorf("a disturbed graph must withhold its shape's reading, and only its shape's:\n%s", m)
	}
	slowBase := append([]results.Result(nil), rs...)
	slowBase[0].Stats.Median *= 3 // the byte-heavy graph as it is, slowed by something the probe missed
	if m := HookMoves(slowBase); !strings.Contains(m, "Heavy in bytes: no reading — twice the work took") || !strings.Contains(m, "the arithmetic sets it") {
		t.Errorf("a doubled graph faster than its base must withhold its shape's reading, and only its shape's:\n%s", m)
	}
	table := HookTable(rs).String()
	if strings.Count(table, regime.Memory) < 3 || strings.Count(table, regime.Compute) < 3 {
		t.Errorf("table:\n%s", table)
	}
	if r, err := PredictHookFLOPs.Answer(); err != nil || r < 0.99 || r > 1.01 {
		t.Errorf("PredictHookFLOPs = %v, %v", r, err)
	}
	a := ProblemStepTime.CheckAnswer(6 * 1024 * 768 * 3072 / 50e9)
	if a.Status != exercise.Close || len(a.Solution.Steps) != 3 {
		t.Errorf("the worked answer: %v\n%s", a.Status, a.Text())
	}
}

func TestHookShapesDoubleOneBudget(t *testing.T) {
	h := DefaultHook()
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, w := range []workloads.BudgetMix{h.Bytes, h.FLOPs} {
		// Heavy in bytes must be memory-bound and heavy in FLOPs compute-bound on any plausible CPU:
		// ridges from 5 to 50 FLOP/byte.
		i := w.FLOPs() / w.Bytes()
		if (w == h.Bytes && i > 2) || (w == h.FLOPs && i < 100) {
			t.Errorf("%s: intensity %.3g FLOP/byte", w, i)
		}
	}
	big := h
	big.Bytes.N = 1 << 30
	if big.Validate() == nil {
		t.Error("a 4 GiB copy was not refused")
	}
	many := h
	many.Bytes.Passes = 40
	if many.Validate() == nil {
		t.Error("80 passes doubled were not refused")
	}
}

func TestDecodeIsBandwidthBound(t *testing.T) {
	v := DecodeBudgets()
	if v.Regime != regime.Memory || v.TMemory < 2.8e-3 || v.TMemory > 3.0e-3 {
		t.Errorf("7B bf16 decode on an H200: %s", v)
	}
	if r, _ := PredictDecodeBudgets.Answer(); r < 190 || r > 220 {
		t.Errorf("T_memory / T_compute = %v, want the ridge ≈ 206", r)
	}
}

func TestTransferOption(t *testing.T) {
	if BatchBytes(512) != 512*74*4 {
		t.Errorf("BatchBytes(512) = %v", BatchBytes(512))
	}
	l := TransferLine(512, 64)
	for _, want := range []string{"Off by default", "race.RunCopyingBatch", "PCIe", "(model"} {
		if !strings.Contains(l, want) {
			t.Errorf("TransferLine lacks %q: %s", want, l)
		}
	}
}
