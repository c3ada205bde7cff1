package capstone

import (
	"fmt"
	"math"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/support/units"
)

// This file is the section "Energy per training FLOP": power (a thermal design power) over the
// rate a training step sustains — measured here for this CPU, modeled for the source's socket and
// the H200 — and what the planned run costs in energy at each.

// CoreWatts is the power one core of this CPU is assumed to draw at full load: a per-core share of
// a 56-core, 350 W server Xeon (a cloud VM reports no TDP of its own).
const CoreWatts = 350.0 / 56

// CoreWattsSource says where CoreWatts comes from.
const CoreWattsSource = "assumed: a per-core share of a 56-core, 350 W server Xeon (350 W ÷ 56 ≈ 6.25 W per core), times the cores this process may use; a VM reports no TDP"

// SocketFraction is the share of its peak the source's worked estimate gives the CPU socket on a
// whole training step ("50% of its 10.2 TF peak, optimistic").
const SocketFraction = 0.5

// joulesPerKWh converts joules to kilowatt-hours.
const joulesPerKWh = 3.6e6

// Prices are the hourly prices a run is charged at: declared assumptions the learner edits in the
// cell (rental prices vary by provider, region and commitment), never a quote.
type Prices struct {
	GPUHour    float64 // dollars per H200-hour
	SocketHour float64 // dollars per hour of a server with the source's 64-core socket
}

// DefaultPrices are the notebook's declared prices: $3.50 per H200-hour and $2.00 per hour of a
// 64-core CPU server (assumptions in the range of 2025–26 on-demand cloud listings).
var DefaultPrices = Prices{GPUHour: 3.5, SocketHour: 2}

// Validate refuses negative or non-finite prices.
func (p Prices) Validate() error {
	if !(p.GPUHour >= 0 && p.SocketHour >= 0) || math.IsInf(p.GPUHour+p.SocketHour, 0) {
		return fmt.Errorf("%s: prices %+v: each must be a finite number of dollars per hour, 0 or more", Lesson, p)
	}
	return nil
}

// EnergyTable shows, for each training step measured live on a CPU and for the source's socket and
// the H200 (models), the power, the FLOP/s a whole step sustains, the energy per FLOP (power ÷
// rate), the energy the planned run would take, its hours on one chip and its dollars at the
// declared prices (none for this machine).
func EnergyTable(run Run, steps []results.Result, p Prices) (units.Table, error) {
	if err := run.Validate(); err != nil {
		return units.Table{}, err
	}
	if err := p.Validate(); err != nil {
		return units.Table{}, err
	}
	gpuPower, err := datasheet.TDP(datasheet.H200.Model)
	if err != nil {
		return units.Table{}, err
	}
	socketPower, err := datasheet.TDP(datasheet.ServerCPU.Model)
	if err != nil {
		return units.Table{}, err
	}
	t := units.NewTable("where", "power", "sustained FLOP/s", "energy per FLOP", "energy for the run", "hours on one chip", "dollars for the run")
	row := func(where, power string, watts, lo, hi, perHour float64) {
		hours := func(rate float64) float64 { return run.FLOPs() / rate / 3600 }
		rate := units.SI(lo, "FLOP/s")
		perFLOP := units.SI(watts/lo, "J")
		energy := fmt.Sprintf("%.3g kWh", watts*hours(lo)/1e3)
		h := fmt.Sprintf("%.3g h", hours(lo))
		dollars := "— (no price: your own machine)"
		if perHour > 0 {
			dollars = fmt.Sprintf("$%.3g", perHour*hours(lo))
		}
		if hi != lo {
			rate = units.SI(lo, "FLOP/s") + " – " + units.SI(hi, "FLOP/s")
			perFLOP = units.SI(watts/hi, "J") + " – " + units.SI(watts/lo, "J")
			energy = fmt.Sprintf("%.3g – %.3g kWh", watts*hours(hi)/1e3, watts*hours(lo)/1e3)
			h = fmt.Sprintf("%.3g – %.3g h", hours(hi), hours(lo))
			if perHour > 0 {
				dollars = fmt.Sprintf("$%.3g – $%.3g", perHour*hours(hi), perHour*hours(lo))
			}
		}
		t.Add(where, power, rate, perFLOP, energy, h, dollars)
	}
	cores := devices.ReadCPUFacts().Cores
	var live []results.Result
	for _, r := range steps {
		if r.Provenance.Device != devices.CPU || r.Provenance.Recorded || !(r.FLOPS() > 0) {
			continue
		}
		live = append(live, r)
		w := CoreWatts * float64(cores)
		row(r.Provenance.Label(), fmt.Sprintf("%.0f W (%d cores, assumed)", w, cores), w, r.FLOPS(), r.FLOPS(), 0)
	}
	if len(live) == 0 {
		return units.Table{}, fmt.Errorf("%s: no training step measured live on %s: run the step cell above", Lesson, devices.CPU)
	}
	socket := datasheet.ServerCPU.Ceilings.Peak("float32") * SocketFraction
	row(datasheet.ServerCPU.Model+" (model)", fmt.Sprintf("%.0f W (assumed)", socketPower.Watts), socketPower.Watts, socket, socket, p.SocketHour)
	m := gpumodel.Default()
	lo, hi := m.RunTime(run.FLOPs(), "bfloat16")
	row(m.Name()+", not a measurement", fmt.Sprintf("%.0f W (datasheet TDP)", gpuPower.Watts), gpuPower.Watts, run.FLOPs()/hi.Seconds(), run.FLOPs()/lo.Seconds(), p.GPUHour)
	t.From(results.Origins(live)...)
	t.From(units.Model("power: thermal design power (datasheet or assumed), held for the whole run; rates: the socket at 50% of its peak (the source's estimate), the H200 at the model's training MFU"))
	t.Note("This CPU: " + CoreWattsSource + ".")
	t.Note("Socket: " + socketPower.Source + "; " + datasheet.ServerCPU.Ceilings.Source + ", at 50% of its float32 peak.")
	t.Note("H200: " + gpuPower.Source + "; " + m.MFUNote("bfloat16") + " — below the matrix rate alone: " + m.RateNote("bfloat16") + ".")
	t.From(units.Model(fmt.Sprintf("prices declared in the cell, not quotes: $%.2f per H200-hour, $%.2f per 64-core server-hour", p.GPUHour, p.SocketHour)))
	t.Note(fmt.Sprintf("Dollars = hours on one chip × the declared price ($%.2f per H200-hour, $%.2f per server-hour: assumptions; edit them in the cell). The hours are the same spread over k chips: k times fewer hours each, the same chip-hours, the same dollars.", p.GPUHour, p.SocketHour))
	t.Note("Counted: the chip alone at its TDP. Not counted: the host, memory, network, cooling; a chip below full load draws less, and an idle one still draws some.")
	return t, nil
}

// Energy is EnergyTable of the steps kept by the step cell, at prices p.
func Energy(run Run, p Prices) (units.Table, error) {
	steps, err := results.Recall(KeepStep)
	if err != nil {
		return units.Table{}, err
	}
	return EnergyTable(run, steps, p)
}

// EnergyRatio is the energy per FLOP of the source's socket over the H200's (the model band's
// midpoint rate), both at their TDPs.
func EnergyRatio(run Run) (float64, error) {
	gpuPower, err := datasheet.TDP(datasheet.H200.Model)
	if err != nil {
		return 0, err
	}
	socketPower, err := datasheet.TDP(datasheet.ServerCPU.Model)
	if err != nil {
		return 0, err
	}
	lo, hi := gpumodel.Default().RunTime(run.FLOPs(), "bfloat16")
	gpuRate := run.FLOPs() / ((lo + hi).Seconds() / 2)
	socketRate := datasheet.ServerCPU.Ceilings.Peak("float32") * SocketFraction
	return (socketPower.Watts / socketRate) / (gpuPower.Watts / gpuRate), nil
}
