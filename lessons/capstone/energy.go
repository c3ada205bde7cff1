package capstone

import (
	"fmt"

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

// EnergyTable shows, for each training step measured live on a CPU and for the source's socket and
// the H200 (models), the power, the FLOP/s a whole step sustains, the energy per FLOP (power ÷
// rate) and the energy the planned run would take.
func EnergyTable(run Run, steps []results.Result) (units.Table, error) {
	if err := run.Validate(); err != nil {
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
	t := units.NewTable("where", "power", "sustained FLOP/s", "energy per FLOP", "energy for the run")
	row := func(where, power string, watts, lo, hi float64) {
		rate := units.SI(lo, "FLOP/s")
		perFLOP := units.SI(watts/lo, "J")
		energy := fmt.Sprintf("%.3g kWh", watts*run.FLOPs()/lo/joulesPerKWh)
		if hi != lo {
			rate = units.SI(lo, "FLOP/s") + " – " + units.SI(hi, "FLOP/s")
			perFLOP = units.SI(watts/hi, "J") + " – " + units.SI(watts/lo, "J")
			energy = fmt.Sprintf("%.3g – %.3g kWh", watts*run.FLOPs()/hi/joulesPerKWh, watts*run.FLOPs()/lo/joulesPerKWh)
		}
		t.Add(where, power, rate, perFLOP, energy)
	}
	cores := devices.ReadCPUFacts().Cores
	var live []results.Result
	for _, r := range steps {
		if r.Provenance.Device != devices.CPU || r.Provenance.Recorded || !(r.FLOPS() > 0) {
			continue
		}
		live = append(live, r)
		w := CoreWatts * float64(cores)
		row(r.Provenance.Label(), fmt.Sprintf("%.0f W (%d cores, assumed)", w, cores), w, r.FLOPS(), r.FLOPS())
	}
	if len(live) == 0 {
		return units.Table{}, fmt.Errorf("%s: no training step measured live on %s: run the step cell above", Lesson, devices.CPU)
	}
	socket := datasheet.ServerCPU.Ceilings.Peak("float32") * SocketFraction
	row(datasheet.ServerCPU.Model+" (model)", fmt.Sprintf("%.0f W (assumed)", socketPower.Watts), socketPower.Watts, socket, socket)
	m := gpumodel.Default()
	lo, hi := m.RunTime(run.FLOPs(), "bfloat16")
	row(m.Name()+", not a measurement", fmt.Sprintf("%.0f W (datasheet TDP)", gpuPower.Watts), gpuPower.Watts, run.FLOPs()/hi.Seconds(), run.FLOPs()/lo.Seconds())
	t.From(results.Origins(live)...)
	t.From(units.Model("power: thermal design power (datasheet or assumed), held for the whole run; rates: the socket at 50% of its peak (the source's estimate), the H200 at the model's training MFU"))
	t.Note("This CPU: " + CoreWattsSource + ".")
	t.Note("Socket: " + socketPower.Source + "; " + datasheet.ServerCPU.Ceilings.Source + ", at 50% of its float32 peak.")
	t.Note("H200: " + gpuPower.Source + "; " + m.MFUNote("bfloat16") + " — below the matrix rate alone: " + m.RateNote("bfloat16") + ".")
	t.Note("Counted: the chip alone at its TDP. Not counted: the host, memory, network, cooling; a chip below full load draws less, and an idle one still draws some.")
	return t, nil
}

// Energy is EnergyTable of the steps kept by the step cell.
func Energy(run Run) (units.Table, error) {
	steps, err := results.Recall(KeepStep)
	if err != nil {
		return units.Table{}, err
	}
	return EnergyTable(run, steps)
}
