// Package results is what a measurement says and where it is kept: the Result of a timed workload
// (its Stats, the Disturbance other processes caused, its Provenance: live in this run, recorded on a
// named device, or measured in another run), saved to and loaded from JSON files (Save, Load), and
// kept between notebook cells (each GoNB cell is a new process): Keep and Recall, stamped with the run
// (RunID) so that a cell never shows another run's numbers as live.
//
// Package measure takes the measurements (timing, statistics, ceilings, peaks); this package holds
// what they produce, so lessons, charts and recorded reference files share one schema.
package results
