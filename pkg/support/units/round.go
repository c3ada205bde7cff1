package units

import "math"

// Round3 rounds to three significant digits: 1234.5 → 1230, 0.012345 → 0.0123.
func Round3(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}
