// Package loop holds the XLA while loop the workloads sweep memory with: membound.Passes (the
// bandwidth ceiling) and workloads.BudgetMix (lesson 01's opening graph) repeat a pass with it.
package loop

import (
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
)

// Repeat applies body to x n times in an XLA while loop (one kernel per pass: a loop body is never
// fused across iterations), so that n passes over an array cost n sweeps of memory, as written.
func Repeat(x *graph.Node, n int, body func(*graph.Node) *graph.Node) *graph.Node {
	g := x.Graph()
	xs := x.Shape()
	cond := graph.NewClosure(g, func(g *graph.Graph) []*graph.Node {
		i := graph.Parameter(g, "i", shapes.Make(dtypes.Int32))
		_ = graph.Parameter(g, "x", xs)
		return []*graph.Node{graph.LessThan(i, graph.Const(g, int32(n)))}
	})
	step := graph.NewClosure(g, func(g *graph.Graph) []*graph.Node {
		i := graph.Parameter(g, "i", shapes.Make(dtypes.Int32))
		v := graph.Parameter(g, "x", xs)
		return []*graph.Node{graph.AddScalar(i, 1), body(v)}
	})
	return graph.While(cond, step, graph.Const(g, int32(0)), x)[1]
}
