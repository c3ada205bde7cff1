package race

import "math"

func logRatio(a, b float64) float64 { return math.Log(a / b) }
func pow(a, b float64) float64      { return math.Pow(a, b) }

// roundTo3 rounds to three significant digits.
func roundTo3(v float64) float64 {
	if v == 0 {
		return 0
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}
