package precision

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gpu-course/whygpu/pkg/support/units"
)

// Sums are one set of float32 values added in several orders: float32 addition is not associative,
// so the order changes the last bits of the result. A fixed order gives the same bits on every
// run; a reduction whose order depends on scheduling (a GPU's atomic adds, a thread pool's split)
// need not.
type Sums struct {
	N     int       // values added
	Order []string  // how they were added
	Sum   []float32 // the float32 result of each order
	Exact float64   // the float64 sum of the same values, in order
	Again bool      // the in-order float32 sum, run a second time, gave the same bits
}

// SumOrders adds n float32 values (seeded: the same values every call, magnitudes spread over six
// orders, both signs) in order, in reverse, as four chunks whose partial sums are then added (four
// threads' split) and pairwise (a tree, as a GPU block reduces).
func SumOrders(n int) (Sums, error) {
	if n < 4 || n > 1<<24 {
		return Sums{}, fmt.Errorf("%s: SumOrders needs 4 to %d values, got %d", Lesson, 1<<24, n)
	}
	r := rand.New(rand.NewPCG(5, 5))
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(math.Pow(10, 3*r.Float64()-3) * (2*r.Float64() - 1))
	}
	inOrder := func() float32 {
		var s float32
		for _, x := range xs {
			s += x
		}
		return s
	}
	var rev float32
	for i := n - 1; i >= 0; i-- {
		rev += xs[i]
	}
	var chunks float32
	for c := range 4 {
		var part float32
		for _, x := range xs[c*n/4 : (c+1)*n/4] {
			part += x
		}
		chunks += part
	}
	var exact float64
	for _, x := range xs {
		exact += float64(x)
	}
	first := inOrder()
	return Sums{
		N:     n,
		Order: []string{"in order (one thread: the reference)", "in reverse", "four chunks, then their sums (four threads)", "pairwise tree (a GPU block's reduction)"},
		Sum:   []float32{first, rev, chunks, pairwise(xs)},
		Exact: exact,
		Again: math.Float32bits(inOrder()) == math.Float32bits(first),
	}, nil
}

// pairwise adds xs as a balanced tree.
func pairwise(xs []float32) float32 {
	if len(xs) <= 2 {
		var s float32
		for _, x := range xs {
			s += x
		}
		return s
	}
	h := len(xs) / 2
	return pairwise(xs[:h]) + pairwise(xs[h:])
}

// SumTable shows each order's float32 sum, its bits, and how far it is from the float64 sum.
func SumTable(s Sums) units.Table {
	rows := make([][]string, len(s.Sum))
	for i, v := range s.Sum {
		same := "—"
		if i > 0 {
			same = "no"
			if math.Float32bits(v) == math.Float32bits(s.Sum[0]) {
				same = "yes"
			}
		}
		rows[i] = []string{s.Order[i], fmt.Sprintf("%.9g", v), fmt.Sprintf("%08x", math.Float32bits(v)), same,
			fmt.Sprintf("%.1e", math.Abs(float64(v)-s.Exact)/math.Abs(s.Exact))}
	}
	return units.Table{Origins: []units.Origin{units.MeasuredHere()},
		Header: []string{fmt.Sprintf("order (%d float32 values)", s.N), "sum", "bits", "same bits as in order", "error vs float64"}, Rows: rows}
}

// ReadSums says whether the in-order sum repeated bit for bit and how many orders disagreed with it.
func ReadSums(s Sums) string {
	differ := 0
	for _, v := range s.Sum[1:] {
		if math.Float32bits(v) != math.Float32bits(s.Sum[0]) {
			differ++
		}
	}
	again := "gave the same bits"
	if !s.Again {
		again = "did NOT give the same bits"
	}
	return fmt.Sprintf("The in-order sum, run again, %s; %d of the other %d orders changed the last bits.", again, differ, len(s.Sum)-1)
}
