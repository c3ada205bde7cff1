package hlo

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
)

// CountedOn is how a kernel count from XLA's optimized HLO is labeled wherever it is used (the GPU
// model, a lesson's table): XLA compiles the program for xla:cpu here; a GPU compile fuses
// differently, so the count is the CPU compile's, named as such.
const CountedOn = "counted on xla:cpu"

var (
	countMu sync.Mutex
	counts  = map[string][]Kernel{}
)

var nonKey = regexp.MustCompile(`[^A-Za-z0-9.]+`)

// CompiledKernels returns the kernels (KernelsOf) of the program described by shape (a text naming
// every size that changes the compiled graph): from this process's cache, from disk
// (results.LoadCache), or by opening xla:cpu and calling optimizedHLO, which compiles the program
// there and returns its optimized HLO, and keeping what KernelsOf reads, in this process and on
// disk (results.StoreCache), so a slider that returns to a shape answers at once. The disk key
// names the plugin, its PJRT version and the GoMLX and go-xla versions: kernels compiled by another
// compiler are never reused.
func CompiledKernels(shape string, optimizedHLO func(*devices.Device) (string, error)) ([]Kernel, error) {
	dev, err := devices.Open(devices.CPU)
	if err != nil {
		return nil, err
	}
	p := results.ProvenanceOf(dev)
	key := nonKey.ReplaceAllString(fmt.Sprintf("hlokernels %s pjrt %s gomlx %s go-xla %s %s", dev.Plugin, dev.PJRTVersion, p.GoMLX, p.GoXLA, shape), "-")
	if len(key) > 200 {
		key = key[len(key)-200:]
	}
	countMu.Lock()
	defer countMu.Unlock()
	if ks, ok := counts[key]; ok {
		return ks, nil
	}
	if ks, ok := results.LoadCache[[]Kernel](key); ok && len(ks) > 0 {
		counts[key] = ks
		return ks, nil
	}
	text, err := optimizedHLO(dev)
	if err != nil {
		return nil, err
	}
	ks, err := KernelsOf(text)
	if err != nil {
		return nil, err
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("hlo: no kernels in the optimized HLO of %s", shape)
	}
	counts[key] = ks
	_ = results.StoreCache(key, ks) // a cache: a failed write only costs a recompile
	return ks, nil
}
