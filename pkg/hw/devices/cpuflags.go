package devices

import (
	"slices"
	"sync"

	"github.com/shirou/gopsutil/v4/cpu"
)

// CPUFlag reports whether this CPU lists the feature flag name, spelled as /proc/cpuinfo spells it
// ("amx_bf16", "avx512_bf16", "avx512_vnni"), read with gopsutil like ReadCPUFacts.
func CPUFlag(name string) bool { return slices.Contains(cpuFlags(), name) }

var cpuFlags = sync.OnceValue(func() []string {
	infos, err := cpu.Info()
	if err != nil || len(infos) == 0 {
		return nil
	}
	return infos[0].Flags
})

// AMXInt8PerCycle is the int8 operations one core's AMX unit is assumed to do per cycle: twice
// AMXBF16PerCycle, since an int8 tile row holds 64 values where a bf16 one holds 32 (a 16×64 by
// 64×16 product, 16·16·64 multiply-adds, every 16 cycles) — the course's assumption.
const AMXInt8PerCycle = 2 * AMXBF16PerCycle

// VNNIInt8PerLane is how many int8 multiply-adds one 32-bit lane of an AVX-512 VNNI dot product
// (VPDPBUSD) does per instruction: four, where a float32 FMA does one — so its int8 rate is assumed
// 4× the float32 lanes' (the course's assumption).
const VNNIInt8PerLane = 4
