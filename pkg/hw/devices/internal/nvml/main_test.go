package nvml

import (
	"testing"

	"github.com/gpu-course/whygpu/internal/testmain"
)

// TestMain: every pkg/ package ends its tests through testmain.Main (a clean exit under -race; see
// testmain.Main).
func TestMain(m *testing.M) { testmain.Main(m) }
