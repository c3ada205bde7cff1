package main

import (
	"fmt"
	"strconv"
	"strings"
)

// positiveInts parses a comma-separated flag value of positive integers ("1,256,4096"); empty fields
// are skipped. cmd and flagName name the flag in the error.
func positiveInts(cmd, flagName, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%s: bad %s value %q", cmd, flagName, f)
		}
		out = append(out, n)
	}
	return out, nil
}
