package batching

import (
	"fmt"
	"sort"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/experiments"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
	"github.com/gpu-course/whygpu/pkg/view/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/view/stepcharts"
	"github.com/gpu-course/whygpu/pkg/workloads"

	"github.com/gomlx/compute/dtypes"
)

// CPULanes is how many f32 operations this CPU can start per cycle, from its model: cores × SIMD
// lanes × FMA units. A layer with fewer independent outputs than this leaves lanes idle.
func CPULanes() int {
	f := devices.ReadCPUFacts()
	return f.Cores * f.Lanes32 * f.FMAUnits
}

// gpuTime is a GPU's time per step at a size: a GPU result (live or recorded) when there is one,
// with the GPU model's error against it, else the model; with where it comes from.
func gpuTime(rs []results.Result, batch, hidden int) (sec float64, source string) {
	for _, r := range rs {
		if r.Provenance.Device == devices.CUDA && r.Params["batch"] == batch && r.Params["hidden"] == hidden {
			src, note := fromresult.Source(r.Provenance)
			from := "xla:cuda, " + src.Describe(note)
			if v := stepcharts.ModelVersus([]results.Result{r}); len(v) > 0 {
				from += "; " + v[0]
			}
			return r.Seconds(), from
		}
	}
	e := gpumodel.StepEstimate(experiments.CourseMLP(batch, hidden))
	return -1, e.Label() + ", " + e.Bound
}

// hiddenTiles is the model's picture of one hidden layer's product at a batch: output tiles and the
// share of the GPU's SMs they keep busy (gpumodel's tile/wave quantization).
func hiddenTiles(batch, hidden int) (tiles int, fill float64) {
	e := gpumodel.EstimateMatMul(workloads.MatMul{M: batch, K: hidden, N: hidden, Type: dtypes.Float32})
	return e.Tiles, e.Fill
}

// OccupancyTable explains the sweep at one hidden width, batch by batch: how many independent
// outputs a hidden layer has (B·H), how many output tiles that is and what share of the model GPU's
// SMs they keep busy (the GPU model's tile/wave picture), what share of this CPU's f32 lanes (model)
// its outputs could fill (the parallelism offered: at small batches the lanes still wait on memory,
// each weight read for few multiply-adds), and the time per step on each.
func OccupancyTable(rs []results.Result, hidden int) units.Table {
	sms, cpuLanes := gpumodel.Default().GPU.SMs, CPULanes()
	t := units.Table{Header: []string{"batch", "outputs per hidden layer (B·H)",
		fmt.Sprintf("output tiles → SMs busy (of %d; GPU model, not a measurement)", sms),
		fmt.Sprintf("CPU lanes the outputs could fill (of %d, model; parallelism, not busy lanes)", cpuLanes),
		"xla:cpu time per step (no results)", "GPU time per step", "GPU time from"}}
	t.From(results.Origins(rs)...)
	t.From(units.Formula("B·H outputs per hidden layer"), units.Model("SMs busy and the GPU time: pkg/model/gpumodel's tiles, waves and kernels; CPU lanes: the course's CPU model"))
	var batches []int
	cpu := map[int]float64{}
	why := map[int]string{}
	for _, r := range rs {
		if r.Params["hidden"] != hidden || r.Provenance.Device != devices.CPU || r.Provenance.Recorded {
			continue
		}
		t.Header[4] = "xla:cpu time per step (" + r.Provenance.Origin() + ")"
		b := r.Params["batch"]
		if _, ok := cpu[b]; !ok {
			batches = append(batches, b)
		}
		cpu[b], why[b] = r.Seconds(), results.WhyDisturbed(r)
	}
	sort.Ints(batches)
	for _, b := range batches {
		out := b * hidden
		sec, from := gpuTime(rs, b, hidden)
		gpu := units.Duration(sec)
		if sec < 0 {
			e := gpumodel.StepEstimate(experiments.CourseMLP(b, hidden))
			gpu = e.Band()
		}
		tiles, fill := hiddenTiles(b, hidden)
		t.AddMeasured(why[b],
			fmt.Sprint(b), fmt.Sprint(out),
			fmt.Sprintf("%d → %.0f%%", tiles, 100*fill),
			fmt.Sprintf("%.0f%%", 100*min(1, float64(out)/float64(cpuLanes))),
			units.Duration(cpu[b]), gpu, from,
		)
	}
	full := FillBatch(hidden)
	a := gpumodel.Published
	t.Notes = []string{
		fmt.Sprintf("At hidden %d the outputs could fill the CPU's %d lanes from batch %d on, but that is parallelism offered, not lanes busy: a small batch is too little work to outweigh each call's fixed cost, which the batch amortizes (the lines under the sweep's chart set the smallest batch against its time budget). The GPU's unit of work is an output tile of up to %d×%d on one SM: the %s's %d SMs all get a tile of the hidden layer's product from batch %s on (the first batch whose product has %d tiles, computed from the model's tiles); below that, more samples fill idle SMs and the product takes no longer.",
			hidden, cpuLanes, max(1, (cpuLanes+hidden-1)/hidden), a.TileM, a.TileN, gpumodel.Default().GPU.Model, sms, units.Plain(float64(full)), sms),
		"SMs busy = tiles / (waves × SMs), the GPU model's tile/wave quantization (a model, not a measurement); with few tiles a library also splits the inner loop across idle SMs (split-K), which the model allows for.",
		"GPU model: " + gpumodel.StepEstimate(experiments.CourseMLP(1, hidden)).Note() + ".",
		gpumodel.ChangeLine("step"),
	}
	if b := FloorEnds(hidden); b > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("In the GPU model (not a measurement), the step is launch-bound (starting and waiting on its kernels, not arithmetic) until batch ≈ %s at hidden %d: filling the SMs comes long before the arithmetic outweighs the launches.",
			units.Plain(float64(b)), hidden))
	}
	return t
}

// FillBatch is the smallest batch whose hidden product gives every SM of the model GPU a tile
// (tiles ≥ SMs, gpumodel's tiles), found by bisection: 0 above 2²⁴.
func FillBatch(hidden int) int {
	sms := gpumodel.Default().GPU.SMs
	lo, hi := 0, 1<<24 // tiles(lo) < SMs ≤ tiles(hi)
	if tiles, _ := hiddenTiles(hi, hidden); tiles < sms {
		return 0
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if tiles, _ := hiddenTiles(mid, hidden); tiles >= sms {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// FloorEnds is the smallest power-of-two batch at which the GPU model's step stops being
// launch-bound at this hidden width: where the GPU's time per step starts to grow with the work.
// 0 when it does not within 2²⁴.
func FloorEnds(hidden int) int {
	for b := 1; b <= 1<<24; b *= 2 {
		if gpumodel.StepEstimate(experiments.CourseMLP(b, hidden)).Bound != "launch-bound" {
			return b
		}
	}
	return 0
}

// PeakShareTable shows how much of each device's peak a step uses, at the smallest and the largest
// batch of each sweep given: achieved FLOP/s over the peak (CPU: model; GPU: datasheet, TF32), for
// live and recorded results, and for the GPU model unless a GPU was measured live (beside a
// recording, with the model's error against it in the notes).
func PeakShareTable(sweeps ...[]results.Result) units.Table {
	t := units.Table{Header: []string{"device", "source", "step", "time per step", "achieved", "peak", "share of peak"}}
	t.From(units.Model("the peaks: the course's CPU model, a GPU's datasheet (TF32)"))
	for _, rs := range sweeps {
		if len(rs) == 0 {
			continue
		}
		t.From(results.Origins(rs)...)
		lo, hi := batchRange(rs)
		for _, r := range rs {
			if b := r.Params["batch"]; b != lo && b != hi {
				continue
			}
			src, note := fromresult.Source(r.Provenance)
			peak := "unknown"
			share := "–"
			if r.PeakFLOPS > 0 {
				peak = units.SI(r.PeakFLOPS, "FLOP/s") + " (" + r.Precision + ")"
				share = fmt.Sprintf("%.2g%%", r.PercentOfPeak())
			}
			t.AddMeasured(results.WhyDisturbed(r), r.Provenance.Device, src.Describe(note), r.Label,
				units.Duration(r.Seconds()), units.SI(r.FLOPS(), "FLOP/s"), peak, share)
		}
		var gpuEnds []results.Result
		for _, r := range rs {
			if b := r.Params["batch"]; experiments.HasGPU([]results.Result{r}) && (b == lo || b == hi) {
				gpuEnds = append(gpuEnds, r)
			}
		}
		t.Notes = append(t.Notes, stepcharts.ModelVersus(gpuEnds)...)
		if !stepcharts.HasLiveGPU(rs) {
			hidden := rs[0].Params["hidden"]
			peak := gpumodel.Default().GPU.Peak(workloads.TF32)
			for _, b := range []int{lo, hi} {
				w := experiments.CourseMLP(b, hidden)
				e := gpumodel.StepEstimate(w)
				lo, hi := w.FLOPs()/e.High.Seconds(), w.FLOPs()/e.Low.Seconds()
				t.From(units.Model(e.Note()))
				t.Rows = append(t.Rows, []string{stepcharts.StepModelName, "GPU model band, not a measurement (its assumptions are behind the badge)", w.String(),
					e.Band(), units.SI(lo, "FLOP/s") + " – " + units.SI(hi, "FLOP/s"),
					units.SI(peak, "FLOP/s") + " (" + workloads.TF32 + ")",
					fmt.Sprintf("%.2g–%.2g%%", 100*lo/peak, 100*hi/peak)})
			}
		}
	}
	t.Notes = append([]string{"Peaks are ceilings: the CPU's from its model (cores × clock × SIMD × FMA), the GPU's from the datasheet (TF32 on tensor cores, xla:cuda's default for float32 matrix products)."}, t.Notes...)
	return t
}

// batchRange is the smallest and largest batch among results.
func batchRange(rs []results.Result) (lo, hi int) {
	for i, r := range rs {
		b := r.Params["batch"]
		if i == 0 || b < lo {
			lo = b
		}
		if i == 0 || b > hi {
			hi = b
		}
	}
	return lo, hi
}
