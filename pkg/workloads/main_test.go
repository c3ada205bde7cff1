package workloads

import (
	"testing"

	"github.com/gpu-course/whygpu/internal/devicetest"
)

// TestMain lets `go test -race` of this package exit cleanly after the XLA plugin loaded (see
// devicetest.Main).
func TestMain(m *testing.M) { devicetest.Main(m) }
