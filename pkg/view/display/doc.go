// Package display shows the course's results in a GoNB notebook: charts, tables, progress, errors
// and recall cards. It is the only package that knows about GoNB (gonbui); outside a notebook its
// functions print plain text to stdout instead, so lesson code also runs from `go run` and tests.
package display
