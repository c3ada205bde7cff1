//go:build race

package devicetest

const raceEnabled = true
