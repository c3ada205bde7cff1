package units

import "slices"

// Median is the middle value of xs — the mean of the two middle values when their count is even —
// or 0 for none; xs is left as it was. It is the course's one median: measure.Summarize, the data
// parallel check's timings (pkg/workloads/parallel) and `whygpu bench -cells` all use it.
func Median[T ~int64 | ~float64](xs []T) T {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
