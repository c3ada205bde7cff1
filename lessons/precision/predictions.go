package precision

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/hw/datasheet"
	"github.com/gpu-course/whygpu/pkg/hw/devices"
	"github.com/gpu-course/whygpu/pkg/measure/results"
	"github.com/gpu-course/whygpu/pkg/teach/predict"
	"github.com/gpu-course/whygpu/pkg/workloads"
)

// Predictions of lesson 05.
var (
	// PredictBF16: does halving the bytes speed up a CPU matmul?
	PredictBF16 = predict.Question{
		Key:  "05/bf16-speedup",
		Text: "The same matmul in bfloat16 instead of float32 on xla:cpu: how many times faster? (below 1 means slower) (a factor)",
		Unit: "×",
		Answer: func() (float64, error) {
			rs, err := predict.Kept(KeepDTypes, devices.CPU)
			if err != nil {
				return 0, err
			}
			f32, bf16 := pick(rs, "float32"), pick(rs, "bfloat16")
			if f32 == nil || bf16 == nil {
				return 0, fmt.Errorf("%s: the kept matmuls lack float32 or bfloat16 on %s", Lesson, devices.CPU)
			}
			return f32.Seconds() / bf16.Seconds(), nil
		},
		Why: "Fewer bytes only help where the hardware multiplies the type: GPUs' tensor cores do; a CPU without a matrix unit either converts to float32 or, with avx512_bf16, gets at most 2× float32's peak (one with AMX tiles can get far more: the flag table below). A larger measured ratio is float32 running further below its own peak (the line under the next chart compares each row with its own).",
	}
	// PredictUnderflow: how many float32 gradients vanish in float16.
	PredictUnderflow = predict.Question{
		Key:  "05/f16-zero",
		Text: "After training the small MLP, what percentage of its non-zero float32 weight gradients will become exactly 0 when stored in float16, unscaled? (%)",
		Unit: "%",
		Answer: func() (float64, error) {
			study, err := RecallStudy()
			if err != nil {
				return 0, err
			}
			if len(study) == 0 || len(study[len(study)-1].Rows) == 0 {
				return 0, fmt.Errorf("%s: the kept gradient study is empty: run the study cell above", Lesson)
			}
			last := study[len(study)-1].Rows[0]
			if last.Nonzero32 == 0 {
				return 0, fmt.Errorf("%s: no non-zero gradients in the study", Lesson)
			}
			return 100 * float64(last.Zero16) / float64(last.Nonzero32), nil
		},
		Why: "float16's smallest step above 0 is 2⁻²⁴ ≈ 6·10⁻⁸: a value below half of it (≈ 3·10⁻⁸) rounds to 0, one just above rounds up to it. Gradients shrink as the loss falls, so the later in training, the more of them vanish — loss scaling moves them back up.",
	}
)

func pick(rs []results.Result, dtype string) *results.Result {
	for i := range rs {
		if rs[i].DType == dtype {
			return &rs[i]
		}
	}
	return nil
}

// MineBF16 is lesson 05's recall card from the learner's own bfloat16 speedup.
var MineBF16 = predict.Mine("05/mine-bf16", PredictBF16,
	func(f float64) string {
		return fmt.Sprintf("Your xla:cpu ran the matmul in bfloat16 at %s× its float32 speed. A run whose matrix products take 10 hours in float32 here: how long in bfloat16?", predict.Num(f))
	},
	func(f float64) string {
		path, tiles := cpuPath("bfloat16")
		r := speedReading{Precision: "bfloat16", Speedup: f, PeakRatio: peakFor("bfloat16") / peakFor("float32"), Path: path, Tiles: tiles}
		return fmt.Sprintf("10 h / %s ≈ %s h. %s On a GPU's tensor cores bfloat16 has about twice float32's (TF32) peak.", predict.Num(f), predict.Num(10/f), r)
	})

// PredictInt8: how much faster than float32 an int8 matmul runs on this CPU.
var PredictInt8 = predict.Question{
	Key:  "05/int8-speedup",
	Text: "The same square matmul with int8 inputs and int32 sums instead of float32, on xla:cpu: how many times faster? (a factor)",
	Unit: "×",
	Answer: func() (float64, error) {
		rs, err := predict.Kept(KeepUnits, devices.CPU)
		if err != nil {
			return 0, err
		}
		f32, i8 := pick(rs, "float32"), pick(rs, Int8)
		if f32 == nil || i8 == nil {
			return 0, fmt.Errorf("%s: the kept matmuls lack float32 or int8: run the matrix-units cell above", Lesson)
		}
		return f32.Seconds() / i8.Seconds(), nil
	},
	Why: "An int8 value is a quarter of a float32's bytes and, on a CPU with int8 dot products (VNNI) or AMX tiles, several times the operations per cycle; without them the integers go through a plain vector path.",
}

// PredictTF32 asks, for a GPU, what letting float32 matmuls run as TF32 buys: the datasheet's
// ratio of the two peaks (a model of a compute-bound step, not a measurement).
var PredictTF32 = predict.Question{
	Key:  "05/gpu-tf32",
	Text: "GPU (answered by the H100 datasheet, a model): the float32 matrix products of a compute-bound step on an H100, with TF32 switched on and nothing else changed: how many times faster, at best? (a factor)",
	Unit: "×",
	Answer: func() (float64, error) {
		return datasheet.H100.Peak(workloads.TF32) / datasheet.H100.Peak("float32"), nil
	},
	Model: "datasheet",
	Why:   "TF32 runs float32 matmuls on the tensor cores (494.5 against 67 TFLOP/s dense): the ratio of the peaks, an upper bound, since a whole step sustains less than its matmuls (lesson 08); bfloat16 doubles that again. It is XLA's default on NVIDIA GPUs (JAX's default matmul precision; XLA:CPU has no TF32) and PyTorch's for cuDNN convolutions, not for PyTorch's float32 matmuls.",
}

// PredictDecode8 asks how much 8-bit weights speed up batch-1 decoding of a 7B model on an H200:
// both time budgets from the datasheet (a model), the larger one sets the time.
var PredictDecode8 = predict.Question{
	Key:  "05/gpu-decode-fp8",
	Text: "GPU (answered by the H200 datasheet, a model): a 7B-parameter model generates one token at a time; its weights go from bfloat16 to 8 bits. How many times faster per token? (a factor)",
	Unit: "×",
	Answer: func() (float64, error) {
		return DecodeCost(2, "bfloat16") / DecodeCost(1, "fp8"), nil
	},
	Model: "datasheet",
	Why:   "One token reads every weight once for two FLOPs each, so the memory budget (14 GB ÷ 4.8 TB/s ≈ 3 ms) dwarfs the compute budget (≈ 0.01 ms); halving the bytes halves the time, and the 2× faster FP8 math does not matter.",
}

// DecodeCost is the modeled cost of one batch-1 decoding step per weight on an H200, in bytes'
// worth of HBM time: each weight is read once (bytesPerWeight) and used for 2 FLOPs, which cost
// 2 ÷ the ridge point (the precision's dense peak over the bandwidth, both from the datasheet); the
// larger of the two budgets sets the time. Only ratios of it mean anything.
func DecodeCost(bytesPerWeight float64, precision string) float64 {
	g := datasheet.H200
	ridge := g.Peak(precision) / g.Bandwidth() // FLOPs per byte at which the two budgets are equal
	return max(2/ridge, bytesPerWeight)
}
