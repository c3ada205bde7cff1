package predict_test

import (
	"fmt"
	"os"

	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

func Example() {
	dir, _ := os.MkdirTemp("", "predict")
	defer os.RemoveAll(dir)
	os.Setenv("WHYGPU_CACHE", dir)

	// The prediction cell: the learner replaced the 0 with 4.
	predict.Keep("01/fused-speedup", 4, "×")
	// The measuring cell.
	c, _ := predict.Compare("01/fused-speedup", 6, "×")
	fmt.Print(c.Text())
	// Output:
	// your prediction: 4 × · measured: 6 × · measured/predicted = 1.5
	// Close: the measurement is higher than your guess, within a factor of 2.
}
