// Package charts draws the course's charts with gonum/plot and renders them to SVG or PNG bytes.
// It knows nothing about notebooks: package display shows what it renders.
//
// Every chart takes plain values (Series of XY points, Lanes, Roofs, Memory bars) so a lesson can
// feed it results measured a second ago and results recorded on another machine alike. Each series
// says where its numbers come from (Source): measured live solid, recorded dashed with hollow
// markers, datasheet models dotted; the legend spells it out ("measured live", "recorded on
// NVIDIA H200, 2026-11-30", "datasheet model").
//
// Values are passed in base units (seconds, bytes, FLOP/s, bytes/s); the charts choose prefixes
// for the tick labels (ms, GiB, TFLOP/s) and name the unit on every axis.
//
// Charts have a white background and dark ink, so they read the same in JupyterLab's light and
// dark themes; SVG and PNG place the legend under the plot so it never hides data.
package charts
