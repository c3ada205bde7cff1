package workloads

import (
	"math"

	"github.com/gomlx/compute/dtypes"
)

// F16Max is the largest finite IEEE 754 binary16 value: above it (after rounding) a value becomes +Inf.
const F16Max = 65504.0

// bf16Max is the largest finite bfloat16 value: (2 − 2⁻⁷)·2¹²⁷.
var bf16Max = math.Ldexp(2-math.Ldexp(1, -7), 127)

// Round rounds v to the nearest value a 16-bit dt holds (RoundBF16, RoundF16), so a float64 host
// reference sees the numbers the device does; for wider types it returns v unchanged.
func Round(v float64, dt dtypes.DType) float64 {
	switch dt {
	case dtypes.BFloat16:
		return RoundBF16(float32(v))
	case dtypes.Float16:
		return RoundF16(float32(v))
	}
	return v
}

// RoundF16 rounds v to the nearest IEEE 754 binary16 value (ties to even), subnormals included, and
// returns it as a float64: ±Inf above the largest finite value, 0 below half the smallest subnormal.
// (It is written out here because the float16 package of gomlx/compute flushes float16 subnormals to
// zero, as some hardware modes do; GPUs keep them, and so does the IEEE format the course teaches.)
func RoundF16(v float32) float64 { return roundBinary(float64(v), 10, -14, F16Max) }

// RoundBF16 rounds v to the nearest bfloat16 value (ties to even): float32's 8-bit exponent with 7
// stored mantissa bits.
func RoundBF16(v float32) float64 { return roundBinary(float64(v), 7, -126, bf16Max) }

// roundBinary rounds x to a binary format with mant stored mantissa bits, smallest normal exponent
// emin and largest finite value max.
func roundBinary(x float64, mant, emin int, max float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	a := math.Abs(x)
	_, exp := math.Frexp(a) // a = f·2^exp, f in [0.5, 1)
	e := exp - 1
	if e < emin {
		e = emin // subnormal: fixed quantum 2^(emin−mant)
	}
	q := math.Ldexp(1, e-mant)
	r := math.RoundToEven(a/q) * q
	if r > max {
		r = math.Inf(1)
	}
	return math.Copysign(r, x)
}

// RoundTo rounds float32 values to what dtype dt can represent (Round), so the host reference sees
// the same inputs the device does.
func RoundTo(x []float32, dt dtypes.DType) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = Round(float64(v), dt)
	}
	return out
}

// roundAll returns x rounded to what a 16-bit dt can hold (a copy), or x itself for wider types.
func roundAll(x []float64, dt dtypes.DType) []float64 {
	if dt.Size() >= 4 {
		return x
	}
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = Round(v, dt)
	}
	return out
}
