package batching

import (
	"fmt"
	"sort"

	"github.com/gpu-course/whygpu/lessons/race"
	"github.com/gpu-course/whygpu/pkg/charts"
	"github.com/gpu-course/whygpu/pkg/charts/fromresult"
	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
)

// CPULanes is how many f32 operations this CPU can start per cycle, from its model: cores × SIMD
// lanes × FMA units. A layer with fewer independent outputs than this leaves lanes idle.
func CPULanes() int {
	f, _ := race.CPUFacts()
	return f.Cores * f.Lanes32 * f.FMAUnits
}

// gpuTime is a GPU's time per step at a size: a GPU result (live or recorded) when there is one,
// else the datasheet model; with where it comes from.
func gpuTime(rs []measure.Result, batch, hidden int) (sec float64, source string) {
	for _, r := range rs {
		if r.Provenance.Device == devices.CUDA && r.Params["batch"] == batch && r.Params["hidden"] == hidden {
			src, note := fromresult.Source(r.Provenance)
			return r.Seconds(), "xla:cuda, " + src.Describe(note)
		}
	}
	e := race.EstimateStep(race.Step(batch, hidden))
	return e.Seconds(), race.ModelName + ": " + e.Bound() + " (datasheet model)"
}

// OccupancyTable explains the sweep at one hidden width, batch by batch: how many independent
// outputs a hidden layer has (B·H), what share of the datasheet GPU's FP32 lanes and of this CPU's
// f32 lanes (model) that could keep busy, and the time per step on each.
func OccupancyTable(rs []measure.Result, hidden int) race.Table {
	g, _ := race.CoresOf(race.ModelGPU)
	gpuLanes, cpuLanes := g.CUDACores(), CPULanes()
	t := race.Table{Header: []string{"batch", "outputs per hidden layer (B·H)",
		fmt.Sprintf("GPU lanes with work (of %d, datasheet)", gpuLanes),
		fmt.Sprintf("CPU lanes with work (of %d, model)", cpuLanes),
		"xla:cpu time per step (measured live)", "GPU time per step", "GPU time from"}}
	var batches []int
	cpu := map[int]float64{}
	for _, r := range rs {
		if r.Params["hidden"] != hidden || r.Provenance.Device != devices.CPU || r.Provenance.Recorded {
			continue
		}
		b := r.Params["batch"]
		if _, ok := cpu[b]; !ok {
			batches = append(batches, b)
		}
		cpu[b] = r.Seconds()
	}
	sort.Ints(batches)
	for _, b := range batches {
		out := b * hidden
		sec, from := gpuTime(rs, b, hidden)
		t.Rows = append(t.Rows, []string{
			fmt.Sprint(b), fmt.Sprint(out),
			fmt.Sprintf("%.1f%%", 100*min(1, float64(out)/float64(gpuLanes))),
			fmt.Sprintf("%.0f%%", 100*min(1, float64(out)/float64(cpuLanes))),
			charts.Duration(cpu[b]), charts.Duration(sec), from,
		})
	}
	fill := (gpuLanes + hidden - 1) / hidden
	t.Notes = []string{
		fmt.Sprintf("At hidden %d the CPU's %d lanes have work from batch %d on; the %s's %d lanes need batch ≥ %d — below that, more samples fill idle lanes and the step takes no longer.",
			hidden, cpuLanes, max(1, (cpuLanes+hidden-1)/hidden), race.ModelGPU, gpuLanes, fill),
		"Lanes with work = min(1, B·H / lanes): one output per lane per pass, a first-order picture (a real kernel tiles the outputs, and the GPU keeps up to 2048 threads per SM in flight to hide memory latency).",
	}
	if b := FloorEnds(hidden); b > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("In the datasheet model, the GPU's step stays on its launch floor until batch ≈ %s at hidden %d, where its arithmetic takes as long as starting its kernels.",
			charts.Plain(float64(b)), hidden))
	}
	return t
}

// FloorEnds is the smallest power-of-two batch at which the model's arithmetic (compute or memory
// time) reaches its launch time at this hidden width: where the GPU's time per step starts to grow.
// 0 when it does not within 2²⁴.
func FloorEnds(hidden int) int {
	for b := 1; b <= 1<<24; b *= 2 {
		e := race.EstimateStep(race.Step(b, hidden))
		if max(e.Compute, e.Memory) >= e.Launch {
			return b
		}
	}
	return 0
}

// PeakShareTable shows how much of each device's peak a step uses, at the smallest and the largest
// batch of each sweep given: achieved FLOP/s over the peak (CPU: model; GPU: datasheet, TF32), for
// live and recorded results, and for the datasheet model when there is no GPU result.
func PeakShareTable(sweeps ...[]measure.Result) race.Table {
	t := race.Table{Header: []string{"device", "source", "step", "time per step", "achieved", "peak", "share of peak"}}
	for _, rs := range sweeps {
		if len(rs) == 0 {
			continue
		}
		lo, hi := batchRange(rs)
		for _, r := range rs {
			if b := r.Params["batch"]; b != lo && b != hi {
				continue
			}
			src, note := fromresult.Source(r.Provenance)
			peak := "unknown"
			share := "–"
			if r.PeakFLOPS > 0 {
				peak = charts.SI(r.PeakFLOPS, "FLOP/s") + " (" + r.Precision + ")"
				share = fmt.Sprintf("%.2g%%", r.PercentOfPeak())
			}
			t.Rows = append(t.Rows, []string{r.Provenance.Device, src.Describe(note), r.Label,
				charts.Duration(r.Seconds()), charts.SI(r.FLOPS(), "FLOP/s"), peak, share})
		}
		if !race.HasGPU(rs) {
			hidden := rs[0].Params["hidden"]
			peak := race.ModelSpec().Ceilings.Peak(race.ModelPrecision)
			for _, b := range []int{lo, hi} {
				w := race.Step(b, hidden)
				e := race.EstimateStep(w)
				t.Rows = append(t.Rows, []string{race.ModelName, "datasheet model, not a measurement", w.String(),
					charts.Duration(e.Seconds()), charts.SI(w.FLOPs()/e.Seconds(), "FLOP/s"),
					charts.SI(peak, "FLOP/s") + " (" + race.ModelPrecision + ")",
					fmt.Sprintf("%.2g%%", 100*w.FLOPs()/e.Seconds()/peak)})
			}
		}
	}
	t.Notes = []string{"Peaks are ceilings: the CPU's from its model (cores × clock × SIMD × FMA), the GPU's from the datasheet (TF32 on tensor cores, xla:cuda's default for float32 matrix products)."}
	return t
}

// batchRange is the smallest and largest batch among results.
func batchRange(rs []measure.Result) (lo, hi int) {
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
