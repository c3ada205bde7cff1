package bigpicture

import (
	"fmt"
	"time"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/model/regime"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Served is a model answering one request at batch 1: every weight is read once per token (or per
// request), and each weight takes part in one multiply-add.
type Served struct {
	Name          string
	Params        float64 // weights
	BytesPerParam float64 // 2 for bf16, 4 for float32
}

// Decode7B is a 7-billion-parameter language model in bfloat16, generating one token at a time.
var Decode7B = Served{Name: "7B language model, bf16, one token", Params: 7e9, BytesPerParam: 2}

// Toy is SmallMLP served at batch 1 in float32.
var Toy = Served{Name: fmt.Sprintf("toy MLP (%s parameters), f32, one request", units.SI(float64(SmallMLP.NumParams()), "")), Params: float64(SmallMLP.NumParams()), BytesPerParam: 4}

// Bytes is what one token reads: every weight once (the KV cache and activations aside, small at
// short contexts).
func (s Served) Bytes() float64 { return s.Params * s.BytesPerParam }

// FLOPs is one multiply-add per weight: 2 per parameter.
func (s Served) FLOPs() float64 { return 2 * s.Params }

// precision is the peak its products run at on a GPU (XLA: TF32 for float32).
func (s Served) precision() string {
	if s.BytesPerParam == 2 {
		return "bfloat16"
	}
	return "tf32"
}

// Budget is its work against a datasheet GPU's ceilings (the peak for its precision, the HBM
// bandwidth), taking t.
func (s Served) Budget(g datasheet.GPU, t time.Duration) regime.Budget {
	return regime.Budget{FLOPs: s.FLOPs(), Bytes: s.Bytes(), Measured: t,
		CeilingFLOPS: g.Ceilings.Peak(s.precision()), CeilingBytesPerSec: g.Ceilings.BandwidthBytes}
}

// Budgets are its two time budgets on a datasheet GPU: FLOPs over the peak, bytes over the HBM
// bandwidth (seconds).
func (s Served) Budgets(g datasheet.GPU) (tCompute, tMemory float64) {
	v := s.Budget(g, time.Second).Classify()
	return v.TCompute, v.TMemory
}

// toyKernels is the GPU model's assumption for the served toy MLP: one fused kernel per layer
// (product, bias and activation).
const toyKernels = 3

// OnGPU is the GPU model's band for one request of s on the H200: its bytes at the modeled HBM
// rate, its FLOPs at the modeled GEMM rate, and the fixed costs of launching its kernels.
func (s Served) OnGPU(kernels int) gpumodel.Estimate {
	return gpumodel.Default().Estimate(gpumodel.Work{What: s.Name, FLOPs: s.FLOPs(), Bytes: s.Bytes(), Precision: s.precision(),
		Kernels: kernels, KernelsFrom: fmt.Sprintf("assumed: %d kernels", kernels)})
}

// decodeKernels is the GPU model's assumption for a 7B decoder's token: 32 layers of about 8
// kernels (norms, four projections, attention, the MLP's products), plus the output layer.
const decodeKernels = 32*8 + 2

// RegimeTable sets the two served models' budgets against their time: the 7B decoder and the toy
// MLP on the H200 (datasheet budgets, the GPU model's time: a model), and the toy MLP on each live
// device here (its measured time and ceilings), with the regime the rule gives each.
func RegimeTable(rs []results.Result) units.Table {
	g := gpumodel.Default().GPU
	t := units.Table{Header: []string{"request", "weights read", "FLOPs", "T_compute", "T_memory", "time", "regime (the budget rule)"}}
	t.Origins = append(t.Origins, units.Model(fmt.Sprintf("datasheet %s budgets (%s, %s bf16, %s tf32); the time is the course's GPU model band",
		g.Short, units.SI(g.Ceilings.BandwidthBytes, "B/s"), units.SI(g.Ceilings.Peak("bfloat16"), "FLOP/s"), units.SI(g.Ceilings.Peak("tf32"), "FLOP/s"))))
	var notes []string
	for _, c := range []struct {
		s Served
		k int
	}{{Decode7B, decodeKernels}, {Toy, toyKernels}} {
		e := c.s.OnGPU(c.k)
		v := c.s.Budget(g, e.Mid()).Classify()
		notes = append(notes, "The GPU model's time, "+c.s.Name+": "+e.Note()+".")
		t.Rows = append(t.Rows, []string{c.s.Name + " on an " + g.Short + " (model, not a measurement)", units.SI(c.s.Bytes(), "B"), units.SI(c.s.FLOPs(), ""),
			units.Duration(v.TCompute), units.Duration(v.TMemory), e.Band(), v.Regime})
		t.Disturbed = append(t.Disturbed, "")
	}
	for _, r := range rs {
		if r.Provenance.Recorded {
			continue
		}
		v := regime.Of(r).Classify()
		verdict := v.Regime
		if r.Provenance.Device != devices.CUDA && v.CacheResident(r.Bytes) {
			verdict = InCacheVerdict // T_memory from DRAM is only an upper bound: it cannot name the regime
		}
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%s on %s (measured)", Toy.Name, r.Provenance.Device), units.SI(r.Bytes, "B"), units.SI(r.FLOPs, ""),
			units.Duration(v.TCompute), units.Duration(v.TMemory), units.Duration(r.Seconds()), verdict})
		t.Disturbed = append(t.Disturbed, results.WhyDisturbed(r))
		t.Origins = append(t.Origins, results.OriginOf(r.Provenance))
	}
	t.Notes = append(notes, "T_compute = FLOPs ÷ compute ceiling, T_memory = bytes ÷ bandwidth. "+regime.Rule,
		"Live rows use this machine's measured ceilings; the bandwidth is a large copy's, from DRAM, while the toy's weights stay in the CPU's cache between requests, so its T_memory here is an upper bound.")
	return t
}

// InCacheVerdict is a live row's verdict when its bytes fit in the CPU's caches and its DRAM budget
// is a notable part of its time (regime.Verdict.CacheResident): a budget that is only an upper
// bound names no regime.
const InCacheVerdict = "no verdict: its weights sit in cache"

// ToyVersusGPU is the measured time of one toy request on the first live device in rs over the
// GPU model's time (the band's midpoint) for the same request on the H200.
func ToyVersusGPU(rs []results.Result) (float64, error) {
	for _, r := range rs {
		if !r.Provenance.Recorded && r.Seconds() > 0 {
			return r.Seconds() / Toy.OnGPU(toyKernels).Mid().Seconds(), nil
		}
	}
	return 0, fmt.Errorf("%s: no live batch-1 request kept: run the request cell above first", Lesson)
}

// DecodeRatio is T_memory ÷ T_compute of the 7B decoder's token on the H200.
func DecodeRatio() float64 {
	tc, tm := Decode7B.Budgets(gpumodel.Default().GPU)
	return tm / tc
}

// SourceSpeedup is how many times faster the source's H100 rate runs its run than its CPU socket.
func SourceSpeedup() float64 {
	r := SourceRates()
	return r[1].FLOPS / r[0].FLOPS
}
