package data_test

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/workloads/data"
)

// Launch returns at once; the work runs later, in launch order, like a CUDA stream.
func ExampleStream() {
	s := data.NewStream()
	defer s.Close()
	start := make(chan struct{})
	ev := s.Launch(func() error { <-start; return nil })
	fmt.Println("done right after Launch:", ev.Done())
	close(start)
	fmt.Println("Wait:", ev.Wait(), "done:", ev.Done())
	// Output:
	// done right after Launch: false
	// Wait: <nil> done: true
}
