package batching

import (
	"fmt"

	"github.com/gpu-course/whygpu/pkg/model/gpumodel"
	"github.com/gpu-course/whygpu/pkg/teach/exercise"
)

// tile is the side of the output tiles in the lesson's SM-fill picture (the GPU model's default).
const tile = 128

// ProblemSMFill is lesson 03's applied problem: from what batch the wide layer's hidden product gives
// every SM of an H200 an output tile (the SM-fill picture of the lesson, on the datasheet's SM count).
var ProblemSMFill = exercise.Problem{
	Key: "03/sm-fill-h200",
	Question: fmt.Sprintf("The wide layer's hidden product at batch B is a B×%d by %d×%d matmul. An H200 has 132 SMs (datasheet) and "+
		"the product hands them %d×%d tiles of its B×%d output, one per SM at a time. From what batch B on does every SM get at least one tile? (rows)",
		Wide, Wide, Wide, tile, tile, Wide),
	Unit:    "rows",
	Formula: "⌈B ÷ 128⌉ · 4",
	Hint:    fmt.Sprintf("First count the tiles across the %d output columns; then how many rows of tiles the SMs need, and how many batch rows that is.", Wide),
	Solve: func() (exercise.Solution, error) {
		sms := gpumodel.Default().GPU.SMs
		if sms == 0 {
			return exercise.Solution{}, fmt.Errorf("%s: the GPU model has no SM count", Lesson)
		}
		cols := (Wide + tile - 1) / tile
		rows := (sms + cols - 1) / cols
		b := (rows-1)*tile + 1
		return exercise.Solution{Value: float64(b), Steps: []string{
			fmt.Sprintf("Across the %d output columns: %d ÷ %d = %d tiles per row of tiles.", Wide, Wide, tile, cols),
			fmt.Sprintf("%d SMs need %d ÷ %d → %d rows of tiles (%d tiles).", sms, sms, cols, rows, rows*cols),
			fmt.Sprintf("%d rows of tiles need more than %d·%d = %d batch rows: from B = %d on every SM has a tile; below, some sit idle whatever the batch costs.", rows, rows-1, tile, (rows-1)*tile, b),
		}}, nil
	},
}
