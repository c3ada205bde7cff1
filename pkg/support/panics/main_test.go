package panics_test

import (
	"testing"

	"github.com/gpu-course/whygpu/internal/testmain"
)

// TestMain lets `go test -race` of this package exit cleanly after the XLA plugin loaded (see
// testmain.Main).
func TestMain(m *testing.M) { testmain.Main(m) }
