//go:build !unix

package measure

import "time"

// minorFaults is not counted on this system.
func minorFaults() (int64, bool) { return 0, false }

func pageSize() int { return 0 }

// firstTouch is not measured on this system.
func firstTouch(int) (time.Duration, bool) { return 0, false }
