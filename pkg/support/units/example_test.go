package units_test

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/support/units"
)

func ExampleSI() {
	fmt.Println(units.SI(2.5e12, "FLOP/s"), "|", units.Duration(0.0123), "|", units.Bytes(1536), "|", units.BytesFixed(3<<20))
	// Output: 2.5 TFLOP/s | 12.3 ms | 1.5 KiB | 3.0 MiB
}
