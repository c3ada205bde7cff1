// Package bench is the schema of what `whygpu bench` measures (cmd/whygpu/bench.go): GoMLX, JAX and
// numpy timed on the same shapes in one run, the report it saves, and how a lesson reads the latest one.
package bench
