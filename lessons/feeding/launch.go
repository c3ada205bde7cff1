package feeding

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/experiments"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/units"
)

// Launch-bound tiny models: per-call overhead, and what fusing a step into one executable saves.

// launchOp is one small executable of the unfused forward pass.
type launchOp struct {
	exec *graph.Exec
	args func(h *tensors.Tensor) []any
}

// LaunchBound times the forward pass of a tiny MLP at batch 1 (launchLayers layers of width
// launchWidth, weights tied) two ways on dev: as one executable per operation (matmul, bias add, tanh: what an
// eager framework launches, one kernel each) and as one compiled executable for the whole pass
// (what XLA does: it fuses the step). Each result's median is the time of one forward pass; Params
// carry the number of executable calls.
func LaunchBound(dev *devices.Device) (rs []measure.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("launch-bound experiment on %s: %v", dev.Name, r)
		}
	}()
	b := dev.Backend()
	n, L := launchWidth, launchLayers
	up := func(v []float32, dims ...int) (*tensors.Tensor, error) {
		t := tensors.FromFlatDataAndDimensions(v, dims...)
		if err := t.MaterializeOnDevice(b, false, 0); err != nil {
			return nil, err
		}
		return t, nil
	}
	rnd := func(k int, seed int) []float32 {
		v := make([]float32, k)
		for i := range v {
			v[i] = float32(math.Sin(float64(seed*1000+i))) * 0.3
		}
		return v
	}
	x, err := up(rnd(n, 0), 1, n)
	if err != nil {
		return nil, err
	}
	// One weight matrix and bias shared by every layer (tied weights), so that both versions pass
	// the same few arguments per call and differ only in the number of calls.
	wt, err := up(rnd(n*n, 1), n, n)
	if err != nil {
		return nil, err
	}
	bt, err := up(rnd(n, 2), 1, n)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, t := range []*tensors.Tensor{x, wt, bt} {
			_ = t.FinalizeAll()
		}
	}()
	matmul, err := graph.NewExec(b, func(h, w *graph.Node) *graph.Node { return graph.MatMul(h, w) })
	if err != nil {
		return nil, err
	}
	add, err := graph.NewExec(b, func(h, bb *graph.Node) *graph.Node { return graph.Add(h, bb) })
	if err != nil {
		return nil, err
	}
	tanh, err := graph.NewExec(b, func(h *graph.Node) *graph.Node { return graph.Tanh(h) })
	if err != nil {
		return nil, err
	}
	fused, err := graph.NewExec(b, func(h, w, bb *graph.Node) *graph.Node {
		for l := 0; l < L; l++ {
			h = graph.Tanh(graph.Add(graph.MatMul(h, w), bb))
		}
		return h
	})
	if err != nil {
		return nil, err
	}
	defer func() { matmul.Finalize(); add.Finalize(); tanh.Finalize(); fused.Finalize() }()

	unfusedPass := func() error {
		h := x
		for l := 0; l < L; l++ {
			for _, step := range []func(*tensors.Tensor) ([]*tensors.Tensor, error){
				func(h *tensors.Tensor) ([]*tensors.Tensor, error) { return matmul.Exec(h, wt) },
				func(h *tensors.Tensor) ([]*tensors.Tensor, error) { return add.Exec(h, bt) },
				func(h *tensors.Tensor) ([]*tensors.Tensor, error) { return tanh.Exec(h) },
			} {
				out, err := step(h)
				if err != nil {
					return err
				}
				if h != x {
					_ = h.FinalizeAll()
				}
				h = out[0]
			}
		}
		if h != x {
			_ = h.FinalizeAll()
		}
		return nil
	}
	fusedPass := func() error {
		out, err := fused.Exec(x, wt, bt)
		for _, o := range out {
			_ = o.FinalizeAll()
		}
		return err
	}
	flops := float64(L) * (2*float64(n*n) + 2*float64(n)) // matmul + add + tanh (1 each)
	opt := measure.Options{Warmup: 3, Reps: 7, SampleTime: 20 * time.Millisecond}
	for _, c := range []struct {
		name  string
		calls int
		fn    func() error
	}{{"one executable per op", 3 * L, unfusedPass}, {"one fused executable", 1, fusedPass}} {
		st, _, err := measure.Time(c.fn, opt)
		if err != nil {
			return rs, err
		}
		rs = append(rs, measure.Result{Workload: "mlp-forward", Label: fmt.Sprintf("%d-layer MLP forward, batch 1, width %d: %s", L, n, c.name),
			DType: "float32", FLOPs: flops, RelErr: -1, Stats: st,
			Params:     map[string]int{ParamCalls: c.calls, "layers": L, "width": n, "batch": 1},
			Provenance: measure.ProvenanceOf(dev)})
	}
	return rs, nil
}

// LaunchHere runs LaunchBound on every XLA device here, adds recorded results for devices this
// machine lacks, and keeps them.
func LaunchHere() ([]measure.Result, error) {
	return experiments.OnEachDevice(Lesson, "launch-bound", KeepLaunch, LaunchBound)
}

// LaunchTable formats LaunchBound results: calls, time per pass and per call, and how much of the
// time the arithmetic itself would take at ceiling FLOP/s (when given, >0).
func LaunchTable(rs []measure.Result, ceiling float64) units.Table {
	var rows [][]string
	for _, r := range rs {
		calls := max(1, r.Params[ParamCalls])
		math := "—"
		if ceiling > 0 && !r.Provenance.Recorded {
			math = fmt.Sprintf("%.2f%%", 100*r.FLOPs/ceiling/r.Seconds())
		}
		rows = append(rows, []string{r.Provenance.Label(), r.Label, strconv.Itoa(calls), units.Duration(r.Seconds()),
			units.Duration(r.Seconds() / float64(calls)), units.Plain(r.FLOPs), math})
	}
	return units.Table{Header: []string{"device", "forward pass", "executable calls", "time per pass (median)", "per call", "FLOPs", "arithmetic share at the measured matmul ceiling"}, Rows: rows}
}
