package precision

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/devices"
	"github.com/gpu-course/whygpu/pkg/predict"
	"github.com/gpu-course/whygpu/pkg/results"
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
		Why: "Fewer bytes only help if the hardware has fast arithmetic for the type: most CPUs convert bfloat16 to float32 to multiply, GPUs' tensor cores run it natively.",
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
		Why: "float16's smallest step above 0 is about 6·10⁻⁸; gradients shrink as the loss falls, so the later in training, the more of them fall below it — loss scaling moves them back up.",
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
		verdict := "slower: this CPU converts bfloat16 to float32 to multiply"
		if f > 1 {
			verdict = "faster: the CPU multiplies bfloat16 natively"
		}
		return fmt.Sprintf("10 h / %s ≈ %s h — %s. On a GPU's tensor cores bfloat16 has about twice float32's (TF32) peak.", predict.Num(f), predict.Num(10/f), verdict)
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
