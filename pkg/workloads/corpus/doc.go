// Package corpus is the text the course's small language model (lesson 09) trains on: the prose of
// the course's own lessons, extracted from the notebooks' Markdown cells by `go generate` into
// corpus.txt and embedded, so nothing is downloaded at run time. Characters are the tokens.
package corpus
