package datasheet

import "fmt"

// Power is a chip's thermal design power: the sustained electrical power it is built to draw at
// full load, the figure an energy estimate multiplies by time.
type Power struct {
	Watts  float64
	Source string // "datasheet: …" or "assumed: …"
}

// powers are the TDPs the course quotes, by GPU Model or CPU Model.
var powers = map[string]Power{
	H100.Model:      {700, "datasheet: NVIDIA H100 SXM, max thermal design power up to 700 W (configurable)"},
	H200.Model:      {700, "datasheet: NVIDIA H200 SXM, max thermal design power up to 700 W (configurable)"},
	A100.Model:      {400, "datasheet: NVIDIA A100 80GB SXM, max thermal design power 400 W"},
	ServerCPU.Model: {280, "assumed: the source's socket is arithmetic, not a product; 280 W is a typical TDP of a 64-core server CPU (the course's assumption)"},
}

// TDP is the thermal design power of the GPU or CPU socket named by its Model.
func TDP(model string) (Power, error) {
	p, ok := powers[model]
	if !ok {
		return Power{}, fmt.Errorf("datasheet: no thermal design power for %q", model)
	}
	return p, nil
}
