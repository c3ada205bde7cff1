// Package layers holds the test that keeps the course's code in its layers: pkg/ is grouped by layer,
// bottom to top (support, hw, workloads, measure, model, teach, view); a package imports only its
// own layer and those below it; no lesson imports another; only pkg/view/ imports GoNB; no pkg/
// package exports more than MaxExported names; pkg/ has at most MaxLayers directories. It reads the
// source with go/parser, so it needs no device and no build.
package layers

// Layers are pkg/'s top-level directories, bottom to top: a package may import its own layer and
// those before it. Lessons, cmd/ and internal/ sit above them all.
var Layers = []string{"support", "hw", "workloads", "measure", "model", "teach", "view"}

// MaxExported is the most exported names (top-level names and exported methods) a pkg/ package
// may have: past it a package holds more than one idea.
const MaxExported = 150

// MaxLayers is the most directories pkg/ may hold.
const MaxLayers = 8
