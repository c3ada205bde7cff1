package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

var siPrefixes = []struct {
	exp    int
	prefix string
}{
	{-15, "f"}, {-12, "p"}, {-9, "n"}, {-6, "µ"}, {-3, "m"}, {0, ""},
	{3, "k"}, {6, "M"}, {9, "G"}, {12, "T"}, {15, "P"}, {18, "E"},
}

// SI formats v with an SI prefix and a unit, to three significant digits:
// SI(2.5e12, "FLOP/s") is "2.5 TFLOP/s", SI(0.0123, "s") is "12.3 ms", SI(0, "B") is "0 B".
func SI(v float64, unit string) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strings.TrimSpace(strconv.FormatFloat(v, 'g', 3, 64) + " " + unit)
	}
	a := math.Abs(v)
	i := 0
	for i+1 < len(siPrefixes) && a >= math.Pow10(siPrefixes[i+1].exp)*0.9995 {
		i++
	}
	m := v / math.Pow10(siPrefixes[i].exp)
	return strings.TrimSpace(Sig3(m) + " " + siPrefixes[i].prefix + unit)
}

// Sig3 writes a number in [1, 1000) to three significant digits without an exponent or trailing
// zeros: Sig3(22.84) is "22.8", Sig3(3.5) is "3.5", Sig3(123.4) is "123".
func Sig3(m float64) string {
	a := math.Abs(m)
	prec := 2
	switch {
	case a >= 99.95:
		prec = 0
	case a >= 9.995:
		prec = 1
	}
	s := strconv.FormatFloat(m, 'f', prec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// Duration formats seconds with a time unit: Duration(0.0123) is "12.3 ms".
func Duration(seconds float64) string { return SI(seconds, "s") }

// Long formats a long time in the largest unit that reads well: s, min, h, days, years (a year is
// 365 days). Long(36000) is "10 h", Long(2.9e8) is "9.2 years".
func Long(seconds float64) string {
	const minute, hour, day = 60.0, 3600.0, 86400.0
	switch {
	case seconds < 2*minute:
		return fmt.Sprintf("%.3g s", seconds)
	case seconds < 2*hour:
		return fmt.Sprintf("%.3g min", seconds/minute)
	case seconds < 2*day:
		return fmt.Sprintf("%.3g h", seconds/hour)
	case seconds < 2*365*day:
		return fmt.Sprintf("%.3g days", seconds/day)
	}
	return fmt.Sprintf("%.3g years", seconds/(365*day))
}

var binaryUnits = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}

// binary picks the binary prefix for n, at most the one of index top: the index and n in that unit.
func binary(n float64, top int) (int, float64) {
	a := math.Abs(n)
	i := 0
	for i < top && a >= math.Ldexp(1, 10*(i+1))*0.9995 {
		i++
	}
	return i, n / math.Ldexp(1, 10*i)
}

// Bytes formats a byte count with binary prefixes to three significant digits: Bytes(1536) is
// "1.5 KiB", Bytes(3<<30) is "3 GiB" (what charts and tables of sizes show).
func Bytes(n float64) string {
	i, m := binary(n, len(binaryUnits)-1)
	if i == 0 {
		return strconv.FormatFloat(n, 'f', -1, 64) + " B"
	}
	return Sig3(m) + " " + binaryUnits[i]
}

// BytesFixed formats a byte count with binary units up to GiB and a fixed number of decimals per
// unit: "512 B", "2.0 KiB", "3.0 MiB", "1.50 GiB" (what workload labels and memory ledgers show, so
// sizes line up in a column).
func BytesFixed(b float64) string {
	i := 0
	for i < 3 && b >= math.Ldexp(1, 10*(i+1)) {
		i++
	}
	return fmt.Sprintf([]string{"%.0f B", "%.1f KiB", "%.1f MiB", "%.2f GiB"}[i], b/math.Ldexp(1, 10*i))
}

// Plain formats a number for a label: whole numbers below 100 000 as they are (Plain(1024) is
// "1024"), others to three significant digits, with k/M/G from a thousand up (Plain(22.84) is
// "22.8", Plain(0.1) is "0.1", Plain(2.5e9) is "2.5G").
func Plain(v float64) string {
	a := math.Abs(v)
	switch {
	case v == math.Trunc(v) && a < 1e5:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a < 1000:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strings.ReplaceAll(SI(v, ""), " ", "")
}
