// Command gen writes corpus.txt from the lesson notebooks (run by `go generate ./pkg/workloads/corpus`).
package main

import (
	"log"
	"os"
	"path/filepath"

	"github.com/gpu-course/whygpu/pkg/workloads/corpus"
)

func main() {
	// go generate runs in the package directory: the notebooks are two levels up.
	text, err := corpus.Extract(filepath.Join("..", "..", "..", "notebooks"))
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile("corpus.txt", []byte(text), 0o644); err != nil {
		log.Fatal(err)
	}
}
