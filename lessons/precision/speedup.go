package precision

import (
	"fmt"
	"strings"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
)

// A 16-bit speed-up over float32 is the product of two ratios: the modeled peaks' (what the
// hardware path can give) and the two rows' shares of their own peaks (how close each kernel came):
//
//	t_f32 ÷ t_16 = (peak_16 ÷ peak_f32) × (share_16 ÷ share_f32)
//
// speedReading says which of the two a measured ratio came from, so the text never credits hardware
// the CPU's flags say it lacks.
type speedReading struct {
	Precision string  // "bfloat16" or "float16"
	Speedup   float64 // float32's time ÷ this precision's, same FLOPs
	PeakRatio float64 // this precision's modeled peak ÷ float32's (1: no native path)
	// Shares of each row's own modeled peak (0: not known, left out of the sentence).
	F32Share, Share float64
	Path            string // the flag giving the peak, e.g. "avx512_bf16"; "" when none
	Tiles           bool   // Path is an AMX tile unit (amx_*): a matrix unit, not vector dot products
}

// vectorLimit is what vector 16-bit dot products give over float32 at peak: two products per
// 32-bit lane.
const vectorLimit = 2

// within is the slack on a peak ratio before a measured ratio counts as past it: medians of two
// separate runs are not exact.
const within = 1.15

// String is the reading in one or two sentences.
func (s speedReading) String() string {
	path, with := "no native "+s.Precision+" path in this device's flags", ""
	if s.Path != "" {
		path = s.Path
		if s.Tiles {
			path += " tiles"
		}
		with = "with "
	}
	shares := ""
	if s.F32Share > 0 && s.Share > 0 {
		shares = fmt.Sprintf(" (float32 reached %.0f%% of its modeled peak, %s %.0f%% of its own)", 100*s.F32Share, s.Precision, 100*s.Share)
	}
	switch {
	case s.Speedup <= 1.1 && s.Path == "":
		return fmt.Sprintf("%s ran at %.2f× float32's speed: %s, so the values go through float32.", s.Precision, s.Speedup, path)
	case s.Speedup <= 1.1:
		return fmt.Sprintf("%s ran at %.2f× float32's speed: this run gained nothing from %s (another cell timing the same product may differ: a 2-core machine's runs are noisy).", s.Precision, s.Speedup, path)
	case s.Speedup <= s.PeakRatio*within:
		out := fmt.Sprintf("%s ran %.1f× faster than float32, within the %.0f× the modeled peaks allow (%s%s)", s.Precision, s.Speedup, s.PeakRatio, with, path)
		if s.Tiles && s.Speedup > vectorLimit*within {
			out += fmt.Sprintf(": past the %d× of vector dot products, so the tiles did the work", vectorLimit)
		}
		return out + "."
	}
	return fmt.Sprintf("%s ran %.1f× faster than float32, more than the %.0f× the modeled peaks allow (%s%s): the rest is float32 running further below its own peak%s, not faster hardware. Compare each row with its own modeled peak.",
		s.Precision, s.Speedup, s.PeakRatio, with, path, shares)
}

// cpuPath is the flag that sets precision p's modeled peak on this CPU (the fastest one it has),
// and whether it is an AMX tile unit; "" when the CPU has none for p.
func cpuPath(p string) (flag string, tiles bool) {
	f := devices.ReadCPUFacts()
	best := 0.0
	for _, m := range MatrixFlags {
		if m.Peak != nil && m.Precision == p && devices.CPUFlag(m.Flag) {
			if pk := m.Peak(f); pk > best {
				best, flag = pk, m.Flag
			}
		}
	}
	if p == "float16" && devices.CPUFlag("avx512_fp16") {
		flag = "avx512_fp16"
	}
	return flag, strings.HasPrefix(flag, "amx_")
}
