// Package measure times workloads honestly: Run (a workload on a device), Time (your own loop) and
// Summarize (median, min, p90 and coefficient of variation, never a single run).
//
// The rules it enforces: compile time is measured apart from run time (GoMLX compiles once per input
// shape); warm-up runs come before timed ones; a timed run ends only when the device has finished
// (go-xla's execute waits on PJRT's device-completion events before it returns, see
// pjrt/loadedexecutables.go, and outputs stay on the device until read, so reading a result to the host
// is a separate cost and is kept out of the timed region); and results are reported as median, min,
// p90 and coefficient of variation, never a single run.
//
// What it measures is a results.Result (package results holds the schema, its provenance and its
// persistence between cells). Everything else here is a part of taking a time honestly, so it stays
// with the timing: the device's measured ceilings (MeasureCeilings: the best of large matmuls and copy
// passes over an array past the caches, cached for the session, measured again when disturbed) that a time is compared with; what other processes did
// while a time was taken (StartProbe, behind every results.Stats.Disturbance); an interrupt that stops a timed
// loop between runs (CatchInterrupt); the peak memory of a timed step (StartPeak, ReadMemory); and the
// same workload timed without waiting for the device (TimeWithoutWaiting, the wrong way on purpose).
package measure
