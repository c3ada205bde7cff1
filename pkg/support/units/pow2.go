package units

// PowersOfTwo returns lo, 2·lo, 4·lo, … up to hi: PowersOfTwo(1, 8) = [1 2 4 8]. lo must be positive.
func PowersOfTwo(lo, hi int) []int {
	var out []int
	for v := lo; v > 0 && v <= hi; v *= 2 {
		out = append(out, v)
	}
	return out
}
