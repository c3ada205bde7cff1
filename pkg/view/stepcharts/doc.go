// Package stepcharts draws the course's training step against the GPU model: the model's band as a
// race lane and as chart series beside measured results (live or recorded), the crossovers where
// the GPU overtakes the CPU, the model against each recording of the step (ModelVersus, and
// CardVersus over every recording under lessons/reference/), and the model's "where the time would
// go" chart. The sweeps and recordings are package experiments'; the model is gpumodel's; this
// package only turns them into views.
package stepcharts
