package charts

import (
	"math"
	"sort"
)

// Crossings returns the points where curves a and b cross, in increasing x, within the x range
// both curves cover. Each curve is read as straight segments between its points in log–log space
// (the way a log–log chart draws it), so a crossing between two measured batch sizes is
// interpolated geometrically: curves y = x and y = 100 cross at x = 100 exactly, whatever points
// they were sampled at. Points with x ≤ 0 or y ≤ 0 are ignored. A point where the curves touch
// without changing order is not a crossing.
func Crossings(a, b []XY) []XY {
	la, lb := logCurve(a), logCurve(b)
	if len(la) == 0 || len(lb) == 0 {
		return nil
	}
	lo := math.Max(la[0].X, lb[0].X)
	hi := math.Min(la[len(la)-1].X, lb[len(lb)-1].X)
	if lo > hi {
		return nil
	}
	// Every breakpoint of either curve inside the overlap: between two of them both curves are
	// straight, so their difference is too and its root is exact.
	var grid []float64
	for _, c := range [][]XY{la, lb} {
		for _, p := range c {
			if p.X >= lo && p.X <= hi {
				grid = append(grid, p.X)
			}
		}
	}
	sort.Float64s(grid)
	grid = dedup(grid)

	diff := func(lx float64) float64 { return interp(la, lx) - interp(lb, lx) }
	var out []XY
	prevX, prevD := math.NaN(), 0.0 // last grid point where the curves differ
	zeroX := math.NaN()             // first grid point since then where they are equal
	for _, lx := range grid {
		d := diff(lx)
		if d == 0 {
			if math.IsNaN(zeroX) {
				zeroX = lx
			}
			continue
		}
		if !math.IsNaN(prevX) && (d > 0) != (prevD > 0) {
			x := zeroX
			if math.IsNaN(x) {
				// Both curves are straight between prevX and lx: the root of their difference.
				t := prevD / (prevD - d)
				x = prevX + t*(lx-prevX)
			}
			out = append(out, XY{X: math.Exp(x), Y: math.Exp(interp(la, x))})
		}
		prevX, prevD, zeroX = lx, d, math.NaN()
	}
	return out
}

// Crossover returns the first point where curves a and b cross (see Crossings); ok is false when
// they do not cross where both are defined.
func Crossover(a, b []XY) (at XY, ok bool) {
	c := Crossings(a, b)
	if len(c) == 0 {
		return XY{}, false
	}
	return c[0], true
}

// Cross is a crossing of two named series.
type Cross struct {
	// A and B are the series' names; A is the lower (faster, for times) one before the crossing.
	A, B string
	// At is where they cross: At.X the batch size (or size), At.Y the common value.
	At XY
}

// Crossovers returns every crossing between every pair of series, in increasing x.
func Crossovers(series []Series) []Cross {
	var out []Cross
	for i := range series {
		for j := i + 1; j < len(series); j++ {
			for _, at := range Crossings(series[i].Points, series[j].Points) {
				a, b := series[i].Name, series[j].Name
				// Name first the series that is lower just before the crossing.
				if below(series[j].Points, series[i].Points, at.X) {
					a, b = b, a
				}
				out = append(out, Cross{A: a, B: b, At: at})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.X < out[j].At.X })
	return out
}

// below reports whether curve a is under curve b just left of x (in log space).
func below(a, b []XY, x float64) bool {
	la, lb := logCurve(a), logCurve(b)
	lx := math.Log(x)
	lo := math.Max(la[0].X, lb[0].X)
	probe := lx - 1e-6
	if probe < lo {
		probe = lo
	}
	return interp(la, probe) < interp(lb, probe)
}

// logCurve returns the positive points as (ln x, ln y), sorted by x, one point per x (the mean
// of duplicates).
func logCurve(pts []XY) []XY {
	var c []XY
	for _, p := range pts {
		if p.X > 0 && p.Y > 0 && !math.IsInf(p.X, 0) && !math.IsInf(p.Y, 0) {
			c = append(c, XY{X: math.Log(p.X), Y: math.Log(p.Y)})
		}
	}
	sort.SliceStable(c, func(i, j int) bool { return c[i].X < c[j].X })
	var out []XY
	for i := 0; i < len(c); {
		j, sum := i, 0.0
		for ; j < len(c) && c[j].X == c[i].X; j++ {
			sum += c[j].Y
		}
		out = append(out, XY{X: c[i].X, Y: sum / float64(j-i)})
		i = j
	}
	return out
}

// interp reads a sorted curve at x, linearly between its points (clamped at the ends).
func interp(c []XY, x float64) float64 {
	i := sort.Search(len(c), func(i int) bool { return c[i].X >= x })
	switch {
	case i == 0:
		return c[0].Y
	case i == len(c):
		return c[len(c)-1].Y
	case c[i].X == x:
		return c[i].Y
	}
	p, q := c[i-1], c[i]
	return p.Y + (q.Y-p.Y)*(x-p.X)/(q.X-p.X)
}

func dedup(xs []float64) []float64 {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
