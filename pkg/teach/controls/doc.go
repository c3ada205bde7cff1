// Package controls describes an interactive form without knowing how it is drawn: its controls
// (drop-downs and whole-number fields) and the view a lesson computes for one set of their values
// (a chart, a caption, the formula behind it, or why the values are refused). A lesson returns
// them; pkg/view/display draws them as a live widget in a notebook (display.Panel) and as text outside
// one. It is a leaf.
package controls
