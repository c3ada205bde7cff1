package roofline

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
)

// Predictions of lesson 02.
var (
	// PredictRidge: this CPU's measured ridge point.
	PredictRidge = predict.Question{
		Key:  "02/ridge-cpu",
		Text: "This machine's xla:cpu ridge point: how many float32 FLOPs per byte moved must a workload do before its matmul ceiling, not memory, limits it? (FLOP/byte)",
		Unit: "FLOP/byte",
		Answer: func() (float64, error) {
			dev, err := devices.Open(devices.CPU)
			if err != nil {
				return 0, err
			}
			c, ok := measure.CachedCeilings(dev)
			if !ok || c.Ridge("float32") == 0 {
				return 0, fmt.Errorf("%s: no ceilings measured for %s yet: run the ridge cell above first", Lesson, devices.CPU)
			}
			return c.Ridge("float32"), nil
		},
		Why: "The ridge is the measured matmul FLOP/s over the measured copy bandwidth: a CPU's is low (tens), a datacenter GPU's is in the hundreds.",
	}
	// PredictMatmul: what share of its ceiling the best matmul point reaches.
	PredictMatmul = predict.Question{
		Key:  "02/matmul-gflops",
		Text: "The fastest matmul of the roofline points on xla:cpu: how many GFLOP/s will it reach? (GFLOP/s)",
		Unit: "GFLOP/s",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(KeepPoints, devices.CPU)
			if err != nil {
				return 0, err
			}
			best := 0.0
			for _, r := range rs {
				if r.Workload == "matmul" && r.GFLOPS() > best {
					best = r.GFLOPS()
				}
			}
			if best == 0 {
				return 0, fmt.Errorf("%s: no matmul among the kept roofline points", Lesson)
			}
			return best, nil
		},
		Why: "A large matmul is far right of the ridge: it runs near the compute ceiling measured above, while the layernorm and a·x + b sit on the bandwidth slope.",
	}
)

// MineRidge is lesson 02's recall card from the learner's own ridge point.
var MineRidge = predict.Mine("02/mine-ridge", PredictRidge,
	func(r float64) string {
		return fmt.Sprintf("Your measured xla:cpu ridge is %s FLOP/byte. A float32 n×n matmul does about n/6 FLOPs per byte (2n³ FLOPs over 3·n²·4 bytes). From what n on is it compute-bound here?", predict.Num(r))
	},
	func(r float64) string {
		return fmt.Sprintf("n/6 ≥ %s, so n ≥ about %s. Smaller matmuls (and every layernorm) sit on the bandwidth slope of this machine.", predict.Num(r), predict.Num(6*r))
	})
