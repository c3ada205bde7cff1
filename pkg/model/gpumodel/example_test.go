package gpumodel_test

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
)

// The band for one 4096² TF32 matrix product on the H200, with its assumptions.
func ExampleModel_Estimate() {
	m := gpumodel.Default()
	w := gpumodel.MatMul(4096, 4096, 4096, "float32", 3*4096*4096*4)
	e := m.Estimate(w)
	fmt.Println(e.Label())
	fmt.Println(e.Bound, "tiles:", e.Tiles, "waves:", e.Waves)
	fmt.Println(e.Assumptions()[2])
	// Output:
	// H200 SXM model: 356 µs – 739 µs (a band, not a measurement)
	// compute-bound tiles: 1024 waves: 8
	// kernels per execution: 1 (one GEMM kernel)
}

// The model's assumptions in one sentence, as the lessons print them instead of quoting numbers.
func ExampleModel_Brief() {
	fmt.Println(gpumodel.Default().Brief("float32"))
	// Output:
	// each matrix product as 128×128 output tiles on 132 SMs at 41–82% of the TF32 peak, bytes at 60–90% of the HBM bandwidth, each kernel issued in 1.5–3.5 µs (a GEMM kernel takes at least 4–6 µs), plus 6–14 µs per execution
}
