// Package units formats the numbers every lesson prints — SI prefixes, durations, bytes,
// three-significant rounding, powers of two — and holds the one table type (header, rows, notes)
// that lessons build and package display shows. It is a leaf: it imports only the standard library,
// so any package (measure, workloads, charts, lessons) can use it.
package units
