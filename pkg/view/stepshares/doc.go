// Package stepshares splits a training step's time among its op classes: given the results of each
// class timed apart (workloads named prefix+class) and of the whole step, it gives each class's
// share of the FLOPs next to its share of the time, as a table and a bar chart. Lessons 07 (the MLP)
// and 09 (the GPT) both use it.
package stepshares
