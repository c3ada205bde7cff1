//go:build !unix

package measure

// minorFaults is not counted on this system.
func minorFaults() (int64, bool) { return 0, false }

func pageSize() int { return 0 }
